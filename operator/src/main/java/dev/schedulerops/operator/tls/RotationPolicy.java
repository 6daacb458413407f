package dev.schedulerops.operator.tls;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * When to issue, renew and rotate a profile's certificates: a pure function of the existing certificates' validity and
 * the clock, so that every case is a unit test without a cluster.
 *
 * <p>Lifetimes: the CA lives {@link #CA_LIFETIME} (1 year), the serving and client certificates
 * {@link #LEAF_LIFETIME} (90 days, never beyond their CA). Each is renewed once {@link #RENEW_AT} (2/3) of its lifetime
 * has passed: a leaf about 30 days, a CA about 4 months before it expires.
 *
 * <p>A CA rotation never has a moment where the scheduler and the extender disagree, because it goes in phases that
 * each roll out (extender first, then scheduler) before the next starts:
 *
 * <ol>
 *   <li>{@link Action#ROTATE_CA}: a new CA; both trust bundles (the extender's client CA, the scheduler's CA) hold the
 *       old and the new CA; the certificates stay those of the old CA.
 *   <li>once both Deployments run that bundle: {@link Action#RENEW_LEAVES} from the new CA. Old pods still trust the
 *       new certificates (their bundle has the new CA) and new pods the old ones.
 *   <li>once both Deployments run the new certificates: {@link Action#DROP_PREVIOUS_CA}.
 * </ol>
 */
public final class RotationPolicy {
    public static final Duration CA_LIFETIME = Duration.ofDays(365);
    public static final Duration LEAF_LIFETIME = Duration.ofDays(90);
    /** Renew at this fraction of a certificate's lifetime. */
    public static final double RENEW_AT = 2.0 / 3.0;
    /** notBefore is set this far in the past, for clocks a little behind the operator's. */
    public static final Duration BACKDATE = Duration.ofMinutes(5);

    private RotationPolicy() {}

    public enum Action {
        /** Nothing to do. */
        KEEP,
        /** No usable CA: a new CA and new certificates, no overlap (there is nothing valid to overlap with). */
        ISSUE_ALL,
        /** Phase 1 of a CA rotation: a new CA, trusted next to the current one; the certificates stay. */
        ROTATE_CA,
        /** New serving and client certificates from the current CA. */
        RENEW_LEAVES,
        /** The previous CA is no longer trusted: nothing signed by it is in use any more, or it expired. */
        DROP_PREVIOUS_CA
    }

    /** A certificate's validity period. */
    public record Validity(Instant notBefore, Instant notAfter) {
        public boolean expiredAt(Instant now) {
            return !now.isBefore(notAfter) || now.isBefore(notBefore);
        }

        /** The moment at {@link #RENEW_AT} of the lifetime. */
        public Instant renewAt() {
            long lifetime = Duration.between(notBefore, notAfter).toSeconds();
            return notBefore.plusSeconds((long) (lifetime * RENEW_AT));
        }

        public boolean dueAt(Instant now) {
            return expiredAt(now) || !now.isBefore(renewAt());
        }
    }

    /**
     * A serving or client certificate as found.
     *
     * @param signedByCurrentCa it verifies against the current CA (else against the previous one, during a rotation)
     * @param fitsProfile it names what it must (the Service's DNS names; the right key usage) and its key matches
     */
    public record Leaf(Validity validity, boolean signedByCurrentCa, boolean fitsProfile) {}

    /**
     * What exists.
     *
     * @param ca the current CA, if its certificate and key are readable
     * @param previousCa the CA being rotated out, if one is still trusted
     * @param serving the extender's serving certificate, if readable and verifiable by a trusted CA
     * @param client the scheduler's client certificate, likewise
     * @param clientRequired mode Mutual: the client certificate must exist
     * @param rotationRequested the user asked for a CA rotation (a new value of the rotate annotation)
     * @param rolledOut both Deployments run pods with the material the Secrets hold now
     * @param trustBundlesHoldCurrentCa both trust bundles as the Secrets hold them (the extender's client CAs, the
     *     scheduler's CAs) contain the current CA. False when a CA rotation's first write reached the CA Secret but
     *     not the others: the pods then run, and trust, only the old CA
     */
    public record Observed(
            Optional<Validity> ca,
            Optional<Validity> previousCa,
            Optional<Leaf> serving,
            Optional<Leaf> client,
            boolean clientRequired,
            boolean rotationRequested,
            boolean rolledOut,
            boolean trustBundlesHoldCurrentCa) {}

    public static Action decide(Observed o, Instant now) {
        if (o.ca().isEmpty() || o.ca().get().expiredAt(now)) {
            return Action.ISSUE_ALL;
        }
        boolean leavesBroken = broken(o.serving(), now) || (o.clientRequired() && broken(o.client(), now));
        if (leavesBroken) {
            return Action.RENEW_LEAVES; // nothing works with them anyway: no reason to wait
        }
        boolean onOldCa = !o.serving().get().signedByCurrentCa()
                || o.client().map(l -> !l.signedByCurrentCa()).orElse(false);
        if (onOldCa) {
            // Phase 2 of a rotation, once both sides trust the new CA: the bundles hold it and the pods run them. A
            // rolled-out state whose bundles lack the new CA (phase 1's Secrets were not all written) is no such
            // state: KEEP writes the bundles first. A previous CA that expired meanwhile would have made the leaves
            // broken above.
            return o.rolledOut() && o.trustBundlesHoldCurrentCa() ? Action.RENEW_LEAVES : Action.KEEP;
        }
        if (o.previousCa().isPresent()) {
            // Phase 3 once the new certificates run everywhere (the previous CA signed nothing in use).
            if (o.rolledOut() || o.previousCa().get().expiredAt(now)) {
                return Action.DROP_PREVIOUS_CA;
            }
            return Action.KEEP;
        }
        if (o.rotationRequested() || o.ca().get().dueAt(now)) {
            return Action.ROTATE_CA;
        }
        boolean leavesDue = o.serving().get().validity().dueAt(now)
                || o.client().map(l -> l.validity().dueAt(now)).orElse(false);
        return leavesDue ? Action.RENEW_LEAVES : Action.KEEP;
    }

    private static boolean broken(Optional<Leaf> leaf, Instant now) {
        return leaf.isEmpty()
                || !leaf.get().fitsProfile()
                || leaf.get().validity().expiredAt(now);
    }

    /** A new leaf's validity: {@link #LEAF_LIFETIME} from now, never beyond its CA. */
    public static Validity leafValidity(Validity ca, Instant now) {
        Instant notAfter = now.plus(LEAF_LIFETIME);
        return new Validity(now.minus(BACKDATE), notAfter.isAfter(ca.notAfter()) ? ca.notAfter() : notAfter);
    }

    public static Validity caValidity(Instant now) {
        return new Validity(now.minus(BACKDATE), now.plus(CA_LIFETIME));
    }
}
