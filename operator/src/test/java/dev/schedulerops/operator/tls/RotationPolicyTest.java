package dev.schedulerops.operator.tls;

import static org.assertj.core.api.Assertions.assertThat;

import dev.schedulerops.operator.tls.RotationPolicy.Action;
import dev.schedulerops.operator.tls.RotationPolicy.Leaf;
import dev.schedulerops.operator.tls.RotationPolicy.Observed;
import dev.schedulerops.operator.tls.RotationPolicy.Validity;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The rotation decisions, from certificate dates and the clock alone. */
class RotationPolicyTest {
    static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
    static final Validity CA = RotationPolicy.caValidity(T0);
    static final Validity LEAF = RotationPolicy.leafValidity(CA, T0);
    static final Leaf FRESH = new Leaf(LEAF, true, true);

    static Observed observed(Optional<Validity> ca, Optional<Validity> previous, Leaf serving, Leaf client) {
        return new Observed(
                ca, previous, Optional.ofNullable(serving), Optional.ofNullable(client), true, false, true, true);
    }

    static Observed healthy() {
        return observed(Optional.of(CA), Optional.empty(), FRESH, FRESH);
    }

    static Instant days(long days) {
        return T0.plus(Duration.ofDays(days));
    }

    @Test
    void lifetimesAreOneYearForTheCaAndNinetyDaysForLeavesNeverBeyondTheCa() {
        assertThat(Duration.between(CA.notBefore(), CA.notAfter()))
                .isEqualTo(Duration.ofDays(365).plus(RotationPolicy.BACKDATE));
        assertThat(LEAF.notAfter()).isEqualTo(days(90));
        Validity late = RotationPolicy.leafValidity(CA, days(300));
        assertThat(late.notAfter()).isEqualTo(CA.notAfter());
    }

    @Test
    void nothingIssuedMeansIssueEverything() {
        Observed none = new Observed(
                Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(), true, false, false, true);
        assertThat(RotationPolicy.decide(none, T0)).isEqualTo(Action.ISSUE_ALL);
    }

    @Test
    void anExpiredCaMeansIssueEverything() {
        assertThat(RotationPolicy.decide(healthy(), CA.notAfter())).isEqualTo(Action.ISSUE_ALL);
    }

    @Test
    void freshCertificatesAreKept() {
        assertThat(RotationPolicy.decide(healthy(), days(1))).isEqualTo(Action.KEEP);
        assertThat(RotationPolicy.decide(healthy(), days(59))).isEqualTo(Action.KEEP);
    }

    @Test
    void leavesAreRenewedAtTwoThirdsOfTheirLifetime() {
        // 90 days + 5 minutes backdating: 2/3 is a little after day 60.
        assertThat(RotationPolicy.decide(healthy(), days(61))).isEqualTo(Action.RENEW_LEAVES);
        Observed oldClient = observed(
                Optional.of(CA),
                Optional.empty(),
                FRESH,
                new Leaf(RotationPolicy.leafValidity(CA, days(-80)), true, true));
        assertThat(RotationPolicy.decide(oldClient, days(1))).isEqualTo(Action.RENEW_LEAVES);
    }

    @Test
    void aMissingOrMismatchedLeafIsRenewedAtOnce() {
        assertThat(RotationPolicy.decide(observed(Optional.of(CA), Optional.empty(), null, FRESH), days(1)))
                .isEqualTo(Action.RENEW_LEAVES);
        assertThat(RotationPolicy.decide(
                        observed(Optional.of(CA), Optional.empty(), new Leaf(LEAF, true, false), FRESH), days(1)))
                .isEqualTo(Action.RENEW_LEAVES);
        assertThat(RotationPolicy.decide(observed(Optional.of(CA), Optional.empty(), FRESH, null), days(1)))
                .as("mode Mutual needs the client certificate")
                .isEqualTo(Action.RENEW_LEAVES);
    }

    @Test
    void modeServerNeedsNoClientCertificate() {
        Observed server = new Observed(
                Optional.of(CA), Optional.empty(), Optional.of(FRESH), Optional.empty(), false, false, true, true);
        assertThat(RotationPolicy.decide(server, days(1))).isEqualTo(Action.KEEP);
    }

    @Test
    void theCaIsRotatedAtTwoThirdsOfItsLifetimeOrOnRequest() {
        Instant late = CA.renewAt().plusSeconds(1);
        Observed freshLeaves = observed(
                Optional.of(CA),
                Optional.empty(),
                new Leaf(RotationPolicy.leafValidity(CA, late), true, true),
                new Leaf(RotationPolicy.leafValidity(CA, late), true, true));
        assertThat(RotationPolicy.decide(freshLeaves, late)).isEqualTo(Action.ROTATE_CA);
        assertThat(RotationPolicy.decide(freshLeaves, CA.renewAt().minusSeconds(1)))
                .isEqualTo(Action.KEEP);
        Observed requested = new Observed(
                Optional.of(CA), Optional.empty(), Optional.of(FRESH), Optional.of(FRESH), true, true, true, true);
        assertThat(RotationPolicy.decide(requested, days(1))).isEqualTo(Action.ROTATE_CA);
    }

    @Test
    void aCaRotationRenewsTheLeavesOnlyOnceBothSidesRunTheNewBundleThenDropsTheOldCa() {
        Validity newCa = RotationPolicy.caValidity(days(10));
        Leaf onOldCa = new Leaf(LEAF, false, true);
        // Phase 1 done, not yet rolled out: wait.
        Observed waiting = new Observed(
                Optional.of(newCa),
                Optional.of(CA),
                Optional.of(onOldCa),
                Optional.of(onOldCa),
                true,
                false,
                false,
                true);
        assertThat(RotationPolicy.decide(waiting, days(10))).isEqualTo(Action.KEEP);
        // Rolled out, but the bundles lack the new CA (the CA Secret was written, the others were not, e.g. a refused
        // write): the pods trust only the old CA, so no leaf may come from the new one yet; KEEP writes the bundles.
        Observed bundlesNotWritten = new Observed(
                Optional.of(newCa),
                Optional.of(CA),
                Optional.of(onOldCa),
                Optional.of(onOldCa),
                true,
                false,
                true,
                false);
        assertThat(RotationPolicy.decide(bundlesNotWritten, days(10))).isEqualTo(Action.KEEP);
        // Both sides trust old and new: new leaves.
        Observed trusted = new Observed(
                Optional.of(newCa),
                Optional.of(CA),
                Optional.of(onOldCa),
                Optional.of(onOldCa),
                true,
                false,
                true,
                true);
        assertThat(RotationPolicy.decide(trusted, days(10))).isEqualTo(Action.RENEW_LEAVES);
        // New leaves issued, not yet rolled out: the old CA stays trusted.
        Leaf onNewCa = new Leaf(RotationPolicy.leafValidity(newCa, days(10)), true, true);
        Observed renewed = new Observed(
                Optional.of(newCa),
                Optional.of(CA),
                Optional.of(onNewCa),
                Optional.of(onNewCa),
                true,
                false,
                false,
                true);
        assertThat(RotationPolicy.decide(renewed, days(10))).isEqualTo(Action.KEEP);
        // Rolled out: the old CA goes.
        Observed done = new Observed(
                Optional.of(newCa),
                Optional.of(CA),
                Optional.of(onNewCa),
                Optional.of(onNewCa),
                true,
                false,
                true,
                true);
        assertThat(RotationPolicy.decide(done, days(10))).isEqualTo(Action.DROP_PREVIOUS_CA);
    }

    @Test
    void aRequestDuringARotationWaitsForItToFinish() {
        Validity newCa = RotationPolicy.caValidity(days(10));
        Leaf onNewCa = new Leaf(RotationPolicy.leafValidity(newCa, days(10)), true, true);
        Observed renewed = new Observed(
                Optional.of(newCa),
                Optional.of(CA),
                Optional.of(onNewCa),
                Optional.of(onNewCa),
                true,
                true,
                false,
                true);
        assertThat(RotationPolicy.decide(renewed, days(10))).isEqualTo(Action.KEEP);
    }

    @Test
    void aPreviousCaThatExpiredIsDroppedEvenBeforeTheRollout() {
        Validity newCa = RotationPolicy.caValidity(days(300));
        Leaf onNewCa = new Leaf(RotationPolicy.leafValidity(newCa, days(300)), true, true);
        Observed o = new Observed(
                Optional.of(newCa),
                Optional.of(CA),
                Optional.of(onNewCa),
                Optional.of(onNewCa),
                true,
                false,
                false,
                true);
        assertThat(RotationPolicy.decide(o, CA.notAfter().plusSeconds(1))).isEqualTo(Action.DROP_PREVIOUS_CA);
    }
}
