package dev.schedulerops.operator.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.schedulerops.operator.api.TlsMode;
import dev.schedulerops.operator.model.Names;
import java.security.GeneralSecurityException;
import java.security.cert.CertPathValidator;
import java.security.cert.CertificateFactory;
import java.security.cert.PKIXParameters;
import java.security.cert.TrustAnchor;
import java.security.cert.X509Certificate;
import java.security.interfaces.ECPublicKey;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The issued certificates: chains that verify, the right names, key usages and validity; PEM that reads back. */
class CertificateIssuerTest {
    static final Names NAMES = new Names("p", "team-a");
    static final Instant NOW = Instant.parse("2026-03-01T00:00:00Z");
    final CertificateIssuer issuer = new CertificateIssuer();

    @Test
    void theChainVerifiesAndEachCertificateHasItsPurpose() throws Exception {
        Issued ca = issuer.ca("test CA", RotationPolicy.caValidity(NOW));
        Issued serving = issuer.serving(ca, NAMES.extenderDnsNames(), RotationPolicy.leafValidity(ca.validity(), NOW));
        Issued client = issuer.client(ca, "p-scheduler.team-a", RotationPolicy.leafValidity(ca.validity(), NOW));

        assertThat(ca.certificate().getBasicConstraints()).isEqualTo(0);
        assertThat(ca.certificate().getKeyUsage()[5]).as("keyCertSign").isTrue();
        assertThat(((ECPublicKey) ca.certificate().getPublicKey())
                        .getParams()
                        .getCurve()
                        .getField()
                        .getFieldSize())
                .as("P-256")
                .isEqualTo(256);

        validates(serving.certificate(), ca.certificate());
        validates(client.certificate(), ca.certificate());
        assertThat(serving.certificate().getBasicConstraints()).isEqualTo(-1);
        assertThat(serving.certificate().getExtendedKeyUsage()).containsExactly("1.3.6.1.5.5.7.3.1");
        assertThat(client.certificate().getExtendedKeyUsage()).containsExactly("1.3.6.1.5.5.7.3.2");
        assertThat(ProfileCertificates.dnsNames(serving.certificate()))
                .containsExactly(
                        "p-extender",
                        "p-extender.team-a",
                        "p-extender.team-a.svc",
                        "p-extender.team-a.svc.cluster.local");
        assertThat(ProfileCertificates.dnsNames(client.certificate())).isEmpty();
        assertThat(serving.certificate().getNotAfter().toInstant()).isEqualTo(NOW.plus(RotationPolicy.LEAF_LIFETIME));
        assertThat(serving.certificate().getNotBefore().toInstant()).isEqualTo(NOW.minus(RotationPolicy.BACKDATE));
    }

    @Test
    void aCertificateOfAnotherCaDoesNotVerify() {
        Issued ca = issuer.ca("one", RotationPolicy.caValidity(NOW));
        Issued other = issuer.ca("other", RotationPolicy.caValidity(NOW));
        Issued client = issuer.client(other, "x", RotationPolicy.leafValidity(other.validity(), NOW));
        assertThatThrownBy(() -> validates(client.certificate(), ca.certificate()))
                .isInstanceOf(GeneralSecurityException.class);
    }

    @Test
    void pemReadsBackAsPkcs8AndTheMaterialRoundTripsThroughTheSecrets() throws Exception {
        TlsMaterial material = ProfileCertificates.apply(
                RotationPolicy.Action.ISSUE_ALL,
                ProfileCertificates.read(Map.of(), Map.of(), Map.of(), NAMES),
                NAMES,
                TlsMode.MUTUAL,
                issuer,
                NOW);
        assertThat(material.servingKey()).startsWith("-----BEGIN PRIVATE KEY-----\n");
        assertThat(Pem.parsePrivateKey(material.servingKey()).getAlgorithm()).isEqualTo("EC");

        ProfileCertificates.Existing read = ProfileCertificates.read(
                material.caSecretData(),
                material.extenderSecretData(),
                material.schedulerSecretData(TlsMode.MUTUAL),
                NAMES);
        assertThat(read.ca()).isPresent();
        assertThat(read.serving()).isPresent();
        assertThat(read.client()).isPresent();
        RotationPolicy.Observed observed = ProfileCertificates.observe(read, TlsMode.MUTUAL, false, true);
        assertThat(RotationPolicy.decide(observed, NOW)).isEqualTo(RotationPolicy.Action.KEEP);
        // KEEP rewrites exactly the same bytes: no rollout without a change.
        TlsMaterial again =
                ProfileCertificates.apply(RotationPolicy.Action.KEEP, read, NAMES, TlsMode.MUTUAL, issuer, NOW);
        assertThat(again).isEqualTo(material);

        // The serving certificate of another profile does not fit this one.
        ProfileCertificates.Existing otherProfile = ProfileCertificates.read(
                material.caSecretData(),
                material.extenderSecretData(),
                material.schedulerSecretData(TlsMode.MUTUAL),
                new Names("q", "team-a"));
        assertThat(otherProfile.serving()).isEmpty();

        // Server mode: no client certificate in the scheduler's Secret.
        assertThat(material.schedulerSecretData(TlsMode.SERVER)).containsOnlyKeys(Names.CA_CERT);
    }

    @Test
    void aCaRotationTrustsBothCasThenRenewsLeavesFromTheNewOne() throws Exception {
        TlsMaterial first = ProfileCertificates.apply(
                RotationPolicy.Action.ISSUE_ALL,
                ProfileCertificates.read(Map.of(), Map.of(), Map.of(), NAMES),
                NAMES,
                TlsMode.MUTUAL,
                issuer,
                NOW);
        TlsMaterial rotated = step(first, RotationPolicy.Action.ROTATE_CA);
        assertThat(rotated.servingCert()).isEqualTo(first.servingCert());
        assertThat(rotated.previousCaCert()).isEqualTo(first.caCert());
        assertThat(Pem.parseCertificates(rotated.extenderSecretData().get(Names.CLIENT_CA)))
                .hasSize(2);
        assertThat(Pem.parseCertificates(
                        rotated.schedulerSecretData(TlsMode.MUTUAL).get(Names.CA_CERT)))
                .hasSize(2);
        ProfileCertificates.Existing mid = existing(rotated);
        assertThat(RotationPolicy.decide(ProfileCertificates.observe(mid, TlsMode.MUTUAL, false, false), NOW))
                .isEqualTo(RotationPolicy.Action.KEEP);
        assertThat(RotationPolicy.decide(ProfileCertificates.observe(mid, TlsMode.MUTUAL, false, true), NOW))
                .isEqualTo(RotationPolicy.Action.RENEW_LEAVES);

        TlsMaterial renewed = step(rotated, RotationPolicy.Action.RENEW_LEAVES);
        X509Certificate newCa = Pem.parseCertificates(renewed.caCert()).get(0);
        validates(Pem.parseCertificates(renewed.servingCert()).get(0), newCa);
        validates(Pem.parseCertificates(renewed.clientCert()).get(0), newCa);
        assertThat(RotationPolicy.decide(
                        ProfileCertificates.observe(existing(renewed), TlsMode.MUTUAL, false, true), NOW))
                .isEqualTo(RotationPolicy.Action.DROP_PREVIOUS_CA);
        TlsMaterial done = step(renewed, RotationPolicy.Action.DROP_PREVIOUS_CA);
        assertThat(Pem.parseCertificates(done.trustBundle())).hasSize(1);
    }

    private TlsMaterial step(TlsMaterial from, RotationPolicy.Action action) {
        return ProfileCertificates.apply(action, existing(from), NAMES, TlsMode.MUTUAL, issuer, NOW);
    }

    private static ProfileCertificates.Existing existing(TlsMaterial m) {
        return ProfileCertificates.read(
                m.caSecretData(), m.extenderSecretData(), m.schedulerSecretData(TlsMode.MUTUAL), NAMES);
    }

    static void validates(X509Certificate leaf, X509Certificate ca) throws GeneralSecurityException {
        CertificateFactory factory = CertificateFactory.getInstance("X.509");
        PKIXParameters params = new PKIXParameters(Set.of(new TrustAnchor(ca, null)));
        params.setRevocationEnabled(false);
        params.setDate(Date.from(NOW));
        CertPathValidator.getInstance("PKIX").validate(factory.generateCertPath(List.of(leaf)), params);
    }
}
