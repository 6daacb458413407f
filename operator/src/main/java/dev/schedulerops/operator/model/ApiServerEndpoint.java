package dev.schedulerops.operator.model;

/**
 * One address and port at which a pod reaches the API server, as the kubernetes Service's EndpointSlice names it (the
 * Service's own address is translated into these before a network plugin applies its policies).
 *
 * @param address an IPv4 or IPv6 address
 * @param port the API server's port there (6443 on most clusters; the Service listens on 443)
 */
public record ApiServerEndpoint(String address, int port) {
    public ApiServerEndpoint {
        if (address == null || address.isBlank()) {
            throw new IllegalArgumentException("an API server address is required");
        }
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("API server port must be between 1 and 65535, got " + port);
        }
    }

    /** The address as a NetworkPolicy ipBlock: this one address only. */
    public String cidr() {
        return address + (address.contains(":") ? "/128" : "/32");
    }

    /** {@code ADDRESS:PORT} ({@code [ADDRESS]:PORT} for IPv6), as {@code render --api-server} takes it. */
    public static ApiServerEndpoint parse(String text) {
        int colon = text.lastIndexOf(':');
        if (colon <= 0 || colon == text.length() - 1) {
            throw new IllegalArgumentException(
                    "an API server endpoint is ADDRESS:PORT (e.g. 10.0.0.10:6443), got \"" + text + "\"");
        }
        String address = text.substring(0, colon);
        if (address.startsWith("[") && address.endsWith("]")) {
            address = address.substring(1, address.length() - 1);
        }
        try {
            return new ApiServerEndpoint(address, Integer.parseInt(text.substring(colon + 1)));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(
                    "an API server endpoint is ADDRESS:PORT (e.g. 10.0.0.10:6443), got \"" + text + "\"");
        }
    }

    @Override
    public String toString() {
        return (address.contains(":") ? "[" + address + "]" : address) + ":" + port;
    }
}
