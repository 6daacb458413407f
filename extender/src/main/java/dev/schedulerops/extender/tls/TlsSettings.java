package dev.schedulerops.extender.tls;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;

/**
 * Where the TLS material of the verb port lives and how often to look for a new one.
 *
 * @param mode disabled, server or mutual
 * @param certFile PEM serving certificate, leaf first, then any intermediates (server and mutual)
 * @param keyFile PEM unencrypted PKCS#8 private key of the leaf (server and mutual)
 * @param clientCaFile PEM bundle of one or more CA certificates trusted for client certificates (mutual)
 * @param reloadInterval how often the files are checked for new content
 */
public record TlsSettings(TlsMode mode, Path certFile, Path keyFile, Path clientCaFile, Duration reloadInterval) {
    public TlsSettings {
        Objects.requireNonNull(mode, "mode");
        Objects.requireNonNull(reloadInterval, "reloadInterval");
        if (mode != TlsMode.disabled) {
            Objects.requireNonNull(certFile, "certFile");
            Objects.requireNonNull(keyFile, "keyFile");
        }
        if (mode == TlsMode.mutual) {
            Objects.requireNonNull(clientCaFile, "clientCaFile");
        }
        if (reloadInterval.isNegative() || reloadInterval.isZero()) {
            throw new IllegalArgumentException("the TLS reload interval must be positive");
        }
    }

    public static TlsSettings disabled() {
        return new TlsSettings(TlsMode.disabled, null, null, null, Duration.ofSeconds(10));
    }

    public boolean enabled() {
        return mode != TlsMode.disabled;
    }
}
