package dev.schedulerops.extender.tls;

import java.time.Instant;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.util.ssl.SslContextFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The verb port's Jetty {@link SslContextFactory.Server}, built from PEM files and rebuilt when their content changes.
 *
 * <p>The files are read every {@link TlsSettings#reloadInterval()}; when the SHA-256 of their content differs from the
 * last content tried, the new material is parsed and checked, and only then swapped in with
 * {@link SslContextFactory#reload}: new handshakes use it, open connections keep theirs. Material that cannot be used
 * keeps the old one in service, logs an ERROR naming the file and counts a failure; the same bad content is not tried
 * again. A read that raced a write (the content changed while it was read) is not a failure: it is tried again at the
 * next check. Kubernetes swaps a Secret volume's files together through its {@code ..data} symlink.
 */
public final class TlsReloader implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(TlsReloader.class);

    /** Told about every reload attempt after the first load. */
    public interface Listener {
        void reloaded(boolean success);
    }

    private final TlsSettings settings;
    private final Listener listener;
    private final SslContextFactory.Server factory = new SslContextFactory.Server();
    private volatile TlsMaterial current;
    private String lastTried;
    private ScheduledExecutorService poller;

    public TlsReloader(TlsSettings settings, Listener listener) {
        if (!settings.enabled()) {
            throw new IllegalArgumentException("TLS is disabled");
        }
        this.settings = settings;
        this.listener = listener;
        factory.setIncludeProtocols("TLSv1.3", "TLSv1.2");
        factory.setEndpointIdentificationAlgorithm(null);
        factory.setNeedClientAuth(settings.mode() == TlsMode.mutual);
        factory.setKeyStorePassword(TlsMaterial.KEY_STORE_PASSWORD);
        // A TLS 1.2 client could otherwise make the server redo the costly half of a handshake on one connection as
        // often as it likes (TLS 1.3 has no renegotiation).
        factory.setRenegotiationAllowed(false);
    }

    /** The factory for the verb port's connector (renegotiation off); configured by {@link #load()}. */
    public SslContextFactory.Server factory() {
        return factory;
    }

    /** Reads the material for the first time; called before the connector starts. */
    public synchronized void load() throws TlsMaterialException {
        TlsMaterial.Files files = TlsMaterial.Files.read(settings);
        TlsMaterial material = TlsMaterial.parse(settings, files, Instant.now());
        configure(factory, material);
        current = material;
        lastTried = files.digest();
        LOG.info(
                "TLS mode {}: serving certificate {} (valid until {}){}",
                settings.mode(),
                material.leaf().getSubjectX500Principal(),
                material.leaf().getNotAfter().toInstant(),
                settings.mode() == TlsMode.mutual
                        ? ", client certificates required from "
                                + material.clientCas().size() + " trusted CA(s)"
                        : ", no client certificate required");
    }

    private void configure(SslContextFactory target, TlsMaterial material) {
        target.setKeyStore(material.keyStore());
        if (settings.mode() == TlsMode.mutual) {
            target.setTrustStore(material.trustStore());
        }
    }

    /** Starts checking the files every reload interval. */
    public synchronized void start() {
        if (poller != null) {
            return;
        }
        poller = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "extender-tls-reload");
            thread.setDaemon(true);
            return thread;
        });
        long millis = settings.reloadInterval().toMillis();
        poller.scheduleWithFixedDelay(this::checkQuietly, millis, millis, TimeUnit.MILLISECONDS);
    }

    private void checkQuietly() {
        try {
            check();
        } catch (RuntimeException e) {
            LOG.error("checking the TLS files failed", e);
        }
    }

    /** Reloads when the files' content changed since the last attempt; returns whether new material was swapped in. */
    public synchronized boolean check() {
        TlsMaterial.Files files;
        try {
            files = TlsMaterial.Files.read(settings);
        } catch (TlsMaterialException e) {
            // A missing or unreadable file is bad material too, reported once until the content changes.
            String marker = "unreadable:" + e.getMessage();
            if (!marker.equals(lastTried)) {
                lastTried = marker;
                fail(e);
            }
            return false;
        }
        String digest = files.digest();
        if (digest.equals(lastTried)) {
            return false;
        }
        TlsMaterial material;
        try {
            material = TlsMaterial.parse(settings, files, Instant.now());
        } catch (TlsMaterialException e) {
            if (changedSince(digest)) {
                LOG.info("the TLS files changed while they were read, trying again at the next check");
                return false;
            }
            lastTried = digest;
            fail(e);
            return false;
        }
        try {
            factory.reload(f -> configure(f, material));
        } catch (Exception e) {
            lastTried = digest;
            restore();
            fail(new TlsMaterialException("Jetty refused the new TLS material: " + e, e));
            return false;
        }
        lastTried = digest;
        current = material;
        LOG.info(
                "reloaded the TLS material: serving certificate {} valid until {}, {} trusted client CA(s)",
                material.leaf().getSubjectX500Principal(),
                material.leaf().getNotAfter().toInstant(),
                material.clientCas().size());
        listener.reloaded(true);
        return true;
    }

    /** Puts the material in use back after Jetty failed to load new material. */
    private void restore() {
        TlsMaterial previous = current;
        try {
            factory.reload(f -> configure(f, previous));
        } catch (Exception e) {
            LOG.error("cannot restore the previous TLS material, new TLS connections will fail", e);
        }
    }

    private boolean changedSince(String digest) {
        try {
            return !TlsMaterial.Files.read(settings).digest().equals(digest);
        } catch (TlsMaterialException e) {
            return true;
        }
    }

    private void fail(TlsMaterialException e) {
        LOG.error("keeping the current TLS material, the new one cannot be used: {}", e.getMessage());
        listener.reloaded(false);
    }

    /** The material in use. */
    public TlsMaterial current() {
        return current;
    }

    /** The serving certificate's notAfter in seconds since the epoch (NaN before the first load). */
    public double certificateExpiryEpochSeconds() {
        TlsMaterial material = current;
        return material == null ? Double.NaN : material.leaf().getNotAfter().getTime() / 1000.0;
    }

    @Override
    public synchronized void close() {
        if (poller != null) {
            poller.shutdownNow();
            poller = null;
        }
    }
}
