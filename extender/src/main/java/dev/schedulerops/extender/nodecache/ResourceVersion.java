package dev.schedulerops.extender.nodecache;

/**
 * Resource versions as numbers, so that the watch and a consistent read can tell which of them holds the newer state of
 * a node. The API server's resource versions are etcd revisions: decimal integers that grow with every write, so one
 * state of an object is newer than another exactly when its version is larger (Kubernetes made that a documented
 * guarantee with comparable resource versions, KEP-5504). A version that is not a plain decimal number (another
 * storage behind an aggregated API, a test double) is {@link #UNKNOWN}, and every comparison with it says "not older",
 * so its writes are always applied, as before versions were compared.
 */
final class ResourceVersion {
    static final long UNKNOWN = -1;

    private ResourceVersion() {}

    static long parse(String version) {
        if (version == null || version.isEmpty() || version.length() > 18) {
            return UNKNOWN;
        }
        long value = 0;
        for (int i = 0; i < version.length(); i++) {
            char c = version.charAt(i);
            if (c < '0' || c > '9') {
                return UNKNOWN;
            }
            value = value * 10 + (c - '0');
        }
        return value;
    }

    static boolean isKnown(long version) {
        return version != UNKNOWN;
    }

    /** Whether {@code version} is known to be older than {@code than}: both known, and smaller. */
    static boolean isOlder(long version, long than) {
        return isKnown(version) && isKnown(than) && version < than;
    }
}
