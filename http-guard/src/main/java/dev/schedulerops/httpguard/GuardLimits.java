package dev.schedulerops.httpguard;

import java.time.Duration;

/**
 * What a guarded port grants its clients ({@link ConnectionGuard}).
 *
 * @param perSource connections one source address may hold at once
 * @param total connections the port holds at once
 * @param lifetime how long any connection may stay open
 */
public record GuardLimits(int perSource, int total, Duration lifetime) {

    /**
     * The kernel's queue of connections not yet accepted, for a guarded port: a flood's burst of connects must not
     * fill it, or a probe's SYN is dropped and its connect waits a second for the retry (the JDK's default is 50).
     */
    public static final int ACCEPT_QUEUE = 1024;

    /**
     * A health port's: the kubelet opens up to three probes at once (startup, liveness, readiness), a scraper one or
     * two; 8 a source leaves room for both on one address. A probe or a scrape is answered in milliseconds, so 5 s
     * only ever closes what sends nothing or trickles.
     */
    public static final GuardLimits HEALTH_PORT = new GuardLimits(8, 64, Duration.ofSeconds(5));

    public GuardLimits {
        if (perSource < 1 || total < perSource) {
            throw new IllegalArgumentException(
                    "need 1 <= perSource <= total, got perSource " + perSource + " and total " + total);
        }
        if (lifetime.isNegative() || lifetime.isZero()) {
            throw new IllegalArgumentException("the lifetime must be positive, got " + lifetime);
        }
    }
}
