package dev.schedulerops.operator.tls;

import dev.schedulerops.operator.api.TlsMode;
import dev.schedulerops.operator.model.Names;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.Signature;
import java.security.cert.CertificateException;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Reads a profile's TLS Secrets into what {@link RotationPolicy} decides on, and carries out its decision. Unreadable
 * or mismatched material counts as missing (and is replaced), never as an error.
 */
public final class ProfileCertificates {
    private static final String SERVER_AUTH = "1.3.6.1.5.5.7.3.1";
    private static final String CLIENT_AUTH = "1.3.6.1.5.5.7.3.2";

    private ProfileCertificates() {}

    /** A certificate, its key and the PEM text they were read from (kept as is, so rewriting changes no byte). */
    public record Pair(X509Certificate certificate, PrivateKey key, String certificatePem, String keyPem) {
        static Pair of(Issued issued) {
            return new Pair(issued.certificate(), issued.key(), issued.certificatePem(), issued.keyPem());
        }

        Issued issued() {
            return new Issued(certificate, key);
        }

        RotationPolicy.Validity validity() {
            return issued().validity();
        }
    }

    /** What the Secrets hold, as far as it is readable and consistent. */
    public record Existing(
            Optional<Pair> ca,
            Optional<X509Certificate> previousCa,
            String previousCaPem,
            Optional<Pair> serving,
            Optional<Pair> client,
            boolean trustBundlesHoldCurrentCa) {}

    /**
     * Reads the three Secrets' decoded data (null or empty maps for absent Secrets).
     *
     * @param names the profile's names: the serving certificate must be valid for the Service's DNS names
     */
    public static Existing read(
            Map<String, String> caData,
            Map<String, String> extenderData,
            Map<String, String> schedulerData,
            Names names) {
        Optional<Pair> ca = pair(get(caData, Names.CA_CERT), get(caData, Names.CA_KEY))
                .filter(p -> p.certificate().getBasicConstraints() >= 0);
        Optional<X509Certificate> previous = ca.isEmpty()
                ? Optional.empty()
                : first(get(caData, Names.PREVIOUS_CA_CERT)).filter(ProfileCertificates::isCa);
        String previousPem = previous.isPresent() ? get(caData, Names.PREVIOUS_CA_CERT) : null;
        Optional<Pair> serving = pair(get(extenderData, Names.TLS_CERT), get(extenderData, Names.TLS_KEY))
                .filter(p -> hasUsage(p.certificate(), SERVER_AUTH)
                        && dnsNames(p.certificate()).containsAll(names.extenderDnsNames()));
        Optional<Pair> client = pair(get(schedulerData, Names.TLS_CERT), get(schedulerData, Names.TLS_KEY))
                .filter(p -> hasUsage(p.certificate(), CLIENT_AUTH));
        if (previous.isEmpty()) {
            previous = orphanedCa(ca, serving.or(() -> client), extenderData, schedulerData);
            previousPem = previous.map(Pem::certificate).orElse(null);
        }
        boolean trusted = ca.isPresent()
                && bundleHolds(get(extenderData, Names.CLIENT_CA), ca.get().certificate())
                && bundleHolds(get(schedulerData, Names.CA_CERT), ca.get().certificate());
        return new Existing(ca, previous, previousPem, serving, client, trusted);
    }

    /**
     * A CA the running pods trust that the CA Secret does not hold: the certificate in the trust bundles, other than
     * the current CA, that signed the leaf in use. It exists when the CA Secret was lost, or replaced by a write the
     * leaf Secrets did not follow (an operator stopped between its writes). Kept as the previous CA, it turns what
     * would be a switch to certificates no running pod trusts into an ordinary rotation: both CAs trusted, then new
     * leaves, then the old CA dropped.
     */
    private static Optional<X509Certificate> orphanedCa(
            Optional<Pair> ca,
            Optional<Pair> leafInUse,
            Map<String, String> extenderData,
            Map<String, String> schedulerData) {
        if (leafInUse.isEmpty()) {
            return Optional.empty();
        }
        X509Certificate leaf = leafInUse.get().certificate();
        return java.util.stream.Stream.of(get(extenderData, Names.CLIENT_CA), get(schedulerData, Names.CA_CERT))
                .flatMap(bundle -> all(bundle).stream())
                .filter(ProfileCertificates::isCa)
                .filter(c -> ca.isEmpty() || !c.equals(ca.get().certificate()))
                .filter(c -> signedBy(leaf, c.getPublicKey()))
                .findFirst();
    }

    private static boolean isCa(X509Certificate certificate) {
        return certificate.getBasicConstraints() >= 0;
    }

    private static List<X509Certificate> all(String pem) {
        if (pem == null) {
            return List.of();
        }
        try {
            return Pem.parseCertificates(pem);
        } catch (CertificateException | RuntimeException e) {
            return List.of();
        }
    }

    /** What {@link RotationPolicy} decides on. */
    public static RotationPolicy.Observed observe(
            Existing e, TlsMode mode, boolean rotationRequested, boolean rolledOut) {
        return new RotationPolicy.Observed(
                e.ca().map(Pair::validity),
                e.previousCa().map(c -> new Issued(c, null).validity()),
                e.serving().map(leaf -> leaf(leaf, e)),
                e.client().map(leaf -> leaf(leaf, e)),
                mode == TlsMode.MUTUAL,
                rotationRequested,
                rolledOut,
                e.trustBundlesHoldCurrentCa());
    }

    private static RotationPolicy.Leaf leaf(Pair leaf, Existing e) {
        boolean byCurrent = e.ca().map(
                        ca -> signedBy(leaf.certificate(), ca.certificate().getPublicKey()))
                .orElse(false);
        boolean byPrevious = e.previousCa()
                .map(ca -> signedBy(leaf.certificate(), ca.getPublicKey()))
                .orElse(false);
        return new RotationPolicy.Leaf(leaf.validity(), byCurrent, byCurrent || byPrevious);
    }

    /** The material after {@code action}: what exists, with what the action replaces newly issued. */
    public static TlsMaterial apply(
            RotationPolicy.Action action,
            Existing e,
            Names names,
            TlsMode mode,
            CertificateIssuer issuer,
            Instant now) {
        Pair ca = e.ca().orElse(null);
        String previousCa = e.previousCaPem();
        Pair serving = e.serving().orElse(null);
        Pair client = e.client().orElse(null);
        switch (action) {
            case KEEP -> {}
            case ISSUE_ALL -> {
                // A CA the pods still trust (see orphanedCa) stays trusted, with the leaves it signed, until the
                // rotation that follows replaces them; without one there is nothing in use to overlap with.
                ca = Pair.of(issuer.ca(caName(names), RotationPolicy.caValidity(now)));
                X509Certificate orphan = e.previousCa().orElse(null);
                previousCa =
                        orphan == null || new Issued(orphan, null).validity().expiredAt(now) ? null : previousCa;
                serving = previousCa == null ? null : usableLeaf(e.serving(), orphan, now);
                client = previousCa == null ? null : usableLeaf(e.client(), orphan, now);
            }
            case ROTATE_CA -> {
                previousCa = ca.certificatePem();
                ca = Pair.of(issuer.ca(caName(names), RotationPolicy.caValidity(now)));
            }
            case RENEW_LEAVES -> {
                serving = null;
                client = null;
            }
            case DROP_PREVIOUS_CA -> previousCa = null;
        }
        if (serving == null) {
            serving = Pair.of(issuer.serving(
                    ca.issued(), names.extenderDnsNames(), RotationPolicy.leafValidity(ca.validity(), now)));
        }
        if (client == null && mode == TlsMode.MUTUAL) {
            client = Pair.of(
                    issuer.client(ca.issued(), clientName(names), RotationPolicy.leafValidity(ca.validity(), now)));
        }
        return new TlsMaterial(
                ca.certificatePem(),
                ca.keyPem(),
                previousCa,
                serving.certificatePem(),
                serving.keyPem(),
                client == null ? null : client.certificatePem(),
                client == null ? null : client.keyPem());
    }

    private static Pair usableLeaf(Optional<Pair> leaf, X509Certificate issuer, Instant now) {
        return leaf.filter(l -> signedBy(l.certificate(), issuer.getPublicKey())
                        && !l.validity().expiredAt(now))
                .orElse(null);
    }

    static String caName(Names names) {
        return cn("schedulerops CA " + names.profile());
    }

    static String clientName(Names names) {
        return cn(names.scheduler() + "." + names.namespace());
    }

    /** A CN is at most 64 characters (RFC 5280). */
    private static String cn(String name) {
        return name.length() <= 64 ? name : name.substring(0, 64);
    }

    private static String get(Map<String, String> data, String key) {
        return data == null ? null : data.get(key);
    }

    /** Whether a PEM bundle holds {@code ca} (byte for byte). */
    static boolean bundleHolds(String bundlePem, X509Certificate ca) {
        return all(bundlePem).contains(ca);
    }

    private static Optional<X509Certificate> first(String pem) {
        return all(pem).stream().findFirst();
    }

    private static Optional<Pair> pair(String certificatePem, String keyPem) {
        if (certificatePem == null || keyPem == null) {
            return Optional.empty();
        }
        try {
            Optional<X509Certificate> cert = first(certificatePem);
            if (cert.isEmpty()) {
                return Optional.empty();
            }
            PrivateKey key = Pem.parsePrivateKey(keyPem);
            if (!matches(key, cert.get().getPublicKey())) {
                return Optional.empty();
            }
            return Optional.of(new Pair(cert.get(), key, certificatePem, keyPem));
        } catch (GeneralSecurityException | IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    /** The key belongs to the certificate: what it signs, the certificate's public key verifies. */
    static boolean matches(PrivateKey key, PublicKey publicKey) {
        try {
            String algorithm = key.getAlgorithm().equals("EC") ? "SHA256withECDSA" : "SHA256withRSA";
            byte[] probe = "schedulerops".getBytes(StandardCharsets.US_ASCII);
            Signature signer = Signature.getInstance(algorithm);
            signer.initSign(key);
            signer.update(probe);
            byte[] signature = signer.sign();
            Signature verifier = Signature.getInstance(algorithm);
            verifier.initVerify(publicKey);
            verifier.update(probe);
            return verifier.verify(signature);
        } catch (GeneralSecurityException e) {
            return false;
        }
    }

    static boolean signedBy(X509Certificate certificate, PublicKey issuerKey) {
        try {
            certificate.verify(issuerKey);
            return true;
        } catch (GeneralSecurityException e) {
            return false;
        }
    }

    static boolean hasUsage(X509Certificate certificate, String oid) {
        try {
            List<String> usages = certificate.getExtendedKeyUsage();
            return usages != null && usages.contains(oid);
        } catch (CertificateParsingException e) {
            return false;
        }
    }

    static List<String> dnsNames(X509Certificate certificate) {
        try {
            Collection<List<?>> names = certificate.getSubjectAlternativeNames();
            if (names == null) {
                return List.of();
            }
            return names.stream()
                    .filter(n -> Integer.valueOf(2).equals(n.get(0)))
                    .map(n -> (String) n.get(1))
                    .toList();
        } catch (CertificateParsingException e) {
            return List.of();
        }
    }
}
