package dev.schedulerops.operator.tls;

import static dev.schedulerops.operator.tls.CertificateIssuerTest.NAMES;
import static dev.schedulerops.operator.tls.CertificateIssuerTest.NOW;
import static dev.schedulerops.operator.tls.CertificateIssuerTest.validates;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import dev.schedulerops.operator.api.TlsMode;
import dev.schedulerops.operator.model.Names;
import dev.schedulerops.operator.tls.RotationPolicy.Action;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A CA the running pods trust that the CA Secret no longer holds: the CA Secret deleted, or replaced by a new CA whose
 * leaf Secrets were never written (an operator stopped between its writes; a drain in CI did that). Either way the
 * pods keep trusting the old CA until certificates from the new one run: at no step does a pod running the material
 * of one step reject the certificate of a pod running the next.
 */
class OrphanedCaTest {
    final CertificateIssuer issuer = new CertificateIssuer();

    @Test
    void aLostCaSecretIsReplacedByARotationThatKeepsTheRunningPodsCaTrusted() throws Exception {
        TlsMaterial running = fresh();

        // The CA Secret is gone; the leaf Secrets, which the pods mount, are as they were.
        ProfileCertificates.Existing found = ProfileCertificates.read(
                Map.of(), running.extenderSecretData(), running.schedulerSecretData(TlsMode.MUTUAL), NAMES);
        assertThat(found.previousCa())
                .as("the CA the bundles hold and the leaves verify against")
                .isPresent();
        assertThat(decideRolledOut(found)).isEqualTo(Action.ISSUE_ALL);
        TlsMaterial reissued = ProfileCertificates.apply(Action.ISSUE_ALL, found, NAMES, TlsMode.MUTUAL, issuer, NOW);

        assertThat(reissued.caCert()).isNotEqualTo(running.caCert());
        assertThat(certificate(reissued.previousCaCert())).isEqualTo(certificate(running.caCert()));
        assertThat(reissued.servingCert()).as("the serving certificate stays").isEqualTo(running.servingCert());
        assertThat(reissued.clientCert()).as("the client certificate stays").isEqualTo(running.clientCert());

        assertThat(rotateToTheEnd(running, reissued)).endsWith(Action.DROP_PREVIOUS_CA);
    }

    @Test
    void aNewCaTheLeafSecretsNeverFollowedIsTrustedBesideTheOldOneBeforeAnyLeafIsRenewed() throws Exception {
        TlsMaterial running = fresh();
        // What a stopped operator left: a CA Secret with another CA, and no previous CA; the leaf Secrets untouched.
        TlsMaterial blind = fresh();
        ProfileCertificates.Existing found = ProfileCertificates.read(
                blind.caSecretData(), running.extenderSecretData(), running.schedulerSecretData(TlsMode.MUTUAL), NAMES);

        assertThat(certificate(Pem.certificate(found.previousCa().orElseThrow())))
                .isEqualTo(certificate(running.caCert()));
        // Before, the leaves counted as broken here and were renewed from the new CA at once: the running scheduler
        // then rejected the extender's new serving certificate (CI, RealNodeDrainTest).
        assertThat(decideRolledOut(found))
                .as("the bundles lack the new CA: they are written first")
                .isEqualTo(Action.KEEP);
        TlsMaterial kept = ProfileCertificates.apply(Action.KEEP, found, NAMES, TlsMode.MUTUAL, issuer, NOW);
        assertThat(kept.servingCert()).isEqualTo(running.servingCert());
        assertThat(certificates(kept.trustBundle()))
                .containsExactly(certificate(blind.caCert()), certificate(running.caCert()));

        assertThat(rotateToTheEnd(running, kept)).containsExactly(Action.RENEW_LEAVES, Action.DROP_PREVIOUS_CA);
    }

    @Test
    void aCaSecretLostWithNoLeafInUseIsAFreshStart() {
        ProfileCertificates.Existing found = ProfileCertificates.read(Map.of(), Map.of(), Map.of(), NAMES);
        assertThat(found.previousCa()).isEmpty();
        TlsMaterial issued = ProfileCertificates.apply(Action.ISSUE_ALL, found, NAMES, TlsMode.MUTUAL, issuer, NOW);
        assertThat(issued.previousCaCert()).isNull();
    }

    @Test
    void aBundleCaThatSignedNoLeafInUseIsNotKept() throws Exception {
        TlsMaterial running = fresh();
        TlsMaterial other = fresh();
        // The bundles hold a stray CA; the leaves are of the current CA: nothing to keep.
        Map<String, String> extender = new java.util.TreeMap<>(running.extenderSecretData());
        extender.put(Names.CLIENT_CA, running.caCert() + other.caCert());
        ProfileCertificates.Existing found = ProfileCertificates.read(
                running.caSecretData(), extender, running.schedulerSecretData(TlsMode.MUTUAL), NAMES);
        assertThat(found.previousCa()).isEmpty();
        assertThat(decideRolledOut(found)).isEqualTo(Action.KEEP);
    }

    /**
     * Runs the policy from {@code start} until it keeps still, each step rolled out, checking at every step that the
     * pods of the step before and the pods of this step accept each other's certificates both ways.
     *
     * @return the actions taken after {@code start}
     */
    private List<Action> rotateToTheEnd(TlsMaterial before, TlsMaterial start) throws Exception {
        acceptEachOther(before, start);
        List<Action> actions = new java.util.ArrayList<>();
        TlsMaterial current = start;
        for (int step = 0; step < 5; step++) {
            ProfileCertificates.Existing found = existing(current);
            Action action = decideRolledOut(found);
            if (action == Action.KEEP) {
                return actions;
            }
            actions.add(action);
            TlsMaterial next = ProfileCertificates.apply(action, found, NAMES, TlsMode.MUTUAL, issuer, NOW);
            acceptEachOther(current, next);
            current = next;
        }
        throw new AssertionError("no steady state after " + actions);
    }

    /** Old pods and new pods talk: each side's trust bundle validates the other side's certificate. */
    private static void acceptEachOther(TlsMaterial old, TlsMaterial now) {
        for (TlsMaterial[] pair : new TlsMaterial[][] {{old, now}, {now, old}}) {
            TlsMaterial scheduler = pair[0];
            TlsMaterial extender = pair[1];
            assertThatCode(() -> trusts(scheduler.trustBundle(), extender.servingCert()))
                    .as("a scheduler pod trusts the extender's serving certificate")
                    .doesNotThrowAnyException();
            assertThatCode(() -> trusts(extender.trustBundle(), scheduler.clientCert()))
                    .as("an extender pod trusts the scheduler's client certificate")
                    .doesNotThrowAnyException();
        }
    }

    private static void trusts(String bundle, String leafPem) throws Exception {
        X509Certificate leaf = certificate(leafPem);
        Exception last = null;
        for (X509Certificate ca : certificates(bundle)) {
            try {
                validates(leaf, ca);
                return;
            } catch (Exception e) {
                last = e;
            }
        }
        throw new AssertionError("no CA of the bundle validates " + leaf.getSubjectX500Principal(), last);
    }

    private TlsMaterial fresh() {
        return ProfileCertificates.apply(
                Action.ISSUE_ALL,
                ProfileCertificates.read(Map.of(), Map.of(), Map.of(), NAMES),
                NAMES,
                TlsMode.MUTUAL,
                issuer,
                NOW);
    }

    /** The policy's decision with both Deployments running what the Secrets hold. */
    private static Action decideRolledOut(ProfileCertificates.Existing found) {
        return RotationPolicy.decide(ProfileCertificates.observe(found, TlsMode.MUTUAL, false, true), NOW);
    }

    private static ProfileCertificates.Existing existing(TlsMaterial m) {
        return ProfileCertificates.read(
                m.caSecretData(), m.extenderSecretData(), m.schedulerSecretData(TlsMode.MUTUAL), NAMES);
    }

    private static X509Certificate certificate(String pem) throws Exception {
        return Pem.parseCertificates(pem).get(0);
    }

    private static List<X509Certificate> certificates(String pem) throws Exception {
        return Pem.parseCertificates(pem);
    }
}
