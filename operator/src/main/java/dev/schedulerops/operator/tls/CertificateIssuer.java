package dev.schedulerops.operator.tls;

import java.math.BigInteger;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.util.Date;
import java.util.List;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x500.X500NameBuilder;
import org.bouncycastle.asn1.x500.style.BCStyle;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.CertIOException;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.ContentSigner;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * Issues ECDSA P-256 certificates with BouncyCastle: a profile's CA, the extender's serving certificate (serverAuth,
 * the Service's DNS names) and the scheduler's client certificate (clientAuth). The only source of randomness in the
 * TLS code; when to call it is {@link RotationPolicy}'s decision.
 */
public final class CertificateIssuer {
    private static final String SIGNATURE = "SHA256withECDSA";

    private final SecureRandom random;

    public CertificateIssuer() {
        this(new SecureRandom());
    }

    public CertificateIssuer(SecureRandom random) {
        this.random = random;
    }

    /** A self-signed CA that may sign only end-entity certificates (path length 0). */
    public Issued ca(String commonName, RotationPolicy.Validity validity) {
        KeyPair keys = newKeyPair();
        X500Name subject = name(commonName);
        try {
            JcaX509ExtensionUtils utils = new JcaX509ExtensionUtils();
            X509v3CertificateBuilder builder = new JcaX509v3CertificateBuilder(
                            subject,
                            serial(),
                            Date.from(validity.notBefore()),
                            Date.from(validity.notAfter()),
                            subject,
                            keys.getPublic())
                    .addExtension(Extension.basicConstraints, true, new BasicConstraints(0))
                    .addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign))
                    .addExtension(
                            Extension.subjectKeyIdentifier, false, utils.createSubjectKeyIdentifier(keys.getPublic()));
            return new Issued(sign(builder, keys), keys.getPrivate());
        } catch (GeneralSecurityException | CertIOException e) {
            throw new IllegalStateException("cannot issue a CA certificate", e);
        }
    }

    /** The extender's serving certificate: serverAuth, valid for {@code dnsNames} (the first is also the CN). */
    public Issued serving(Issued ca, List<String> dnsNames, RotationPolicy.Validity validity) {
        GeneralNames san = new GeneralNames(dnsNames.stream()
                .map(n -> new GeneralName(GeneralName.dNSName, n))
                .toArray(GeneralName[]::new));
        return leaf(ca, dnsNames.get(0), KeyPurposeId.id_kp_serverAuth, san, validity);
    }

    /** The scheduler's client certificate: clientAuth only, no DNS names. */
    public Issued client(Issued ca, String commonName, RotationPolicy.Validity validity) {
        return leaf(ca, commonName, KeyPurposeId.id_kp_clientAuth, null, validity);
    }

    private Issued leaf(
            Issued ca, String commonName, KeyPurposeId purpose, GeneralNames san, RotationPolicy.Validity validity) {
        KeyPair keys = newKeyPair();
        try {
            JcaX509ExtensionUtils utils = new JcaX509ExtensionUtils();
            X509v3CertificateBuilder builder = new JcaX509v3CertificateBuilder(
                            ca.certificate(),
                            serial(),
                            Date.from(validity.notBefore()),
                            Date.from(validity.notAfter()),
                            name(commonName),
                            keys.getPublic())
                    .addExtension(Extension.basicConstraints, true, new BasicConstraints(false))
                    .addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature))
                    .addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(purpose))
                    .addExtension(
                            Extension.authorityKeyIdentifier,
                            false,
                            utils.createAuthorityKeyIdentifier(ca.certificate()))
                    .addExtension(
                            Extension.subjectKeyIdentifier, false, utils.createSubjectKeyIdentifier(keys.getPublic()));
            if (san != null) {
                builder.addExtension(Extension.subjectAlternativeName, false, san);
            }
            return new Issued(signWith(builder, ca), keys.getPrivate());
        } catch (GeneralSecurityException | CertIOException e) {
            throw new IllegalStateException("cannot issue a certificate for " + commonName, e);
        }
    }

    private KeyPair newKeyPair() {
        try {
            KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
            generator.initialize(new ECGenParameterSpec("secp256r1"), random);
            return generator.generateKeyPair();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("no ECDSA P-256 key generator", e);
        }
    }

    private BigInteger serial() {
        return new BigInteger(127, random).add(BigInteger.ONE); // positive, at most 16 bytes (RFC 5280)
    }

    private static X500Name name(String commonName) {
        return new X500NameBuilder(BCStyle.INSTANCE)
                .addRDN(BCStyle.O, "schedulerops")
                .addRDN(BCStyle.CN, commonName)
                .build();
    }

    private static X509Certificate sign(X509v3CertificateBuilder builder, KeyPair keys)
            throws GeneralSecurityException {
        return signWith(builder, new Issued(null, keys.getPrivate()));
    }

    private static X509Certificate signWith(X509v3CertificateBuilder builder, Issued signer)
            throws GeneralSecurityException {
        try {
            ContentSigner contentSigner = new JcaContentSignerBuilder(SIGNATURE).build(signer.key());
            return new JcaX509CertificateConverter().getCertificate(builder.build(contentSigner));
        } catch (OperatorCreationException e) {
            throw new GeneralSecurityException(e);
        }
    }
}
