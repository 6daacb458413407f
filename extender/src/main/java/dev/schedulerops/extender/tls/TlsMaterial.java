package dev.schedulerops.extender.tls;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.KeyStoreException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.cert.CertificateExpiredException;
import java.security.cert.CertificateNotYetValidException;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.util.Date;
import java.util.HexFormat;
import java.util.List;

/**
 * One consistent set of TLS material read from the files of {@link TlsSettings}: the serving key and chain, and the CA
 * certificates trusted for client certificates (empty unless mutual).
 */
public final class TlsMaterial {
    /** The in-memory key store's password: it protects nothing, the key store never leaves the process. */
    static final String KEY_STORE_PASSWORD = "in-memory";

    private final List<X509Certificate> chain;
    private final List<X509Certificate> clientCas;
    private final KeyStore keyStore;
    private final KeyStore trustStore;

    private TlsMaterial(
            List<X509Certificate> chain, List<X509Certificate> clientCas, KeyStore keyStore, KeyStore trustStore) {
        this.chain = List.copyOf(chain);
        this.clientCas = List.copyOf(clientCas);
        this.keyStore = keyStore;
        this.trustStore = trustStore;
    }

    /** The files' raw content, read once so that parsing and change detection see the same bytes. */
    record Files(byte[] cert, byte[] key, byte[] clientCa) {
        static Files read(TlsSettings settings) throws TlsMaterialException {
            return new Files(
                    read(settings.certFile()),
                    read(settings.keyFile()),
                    settings.mode() == TlsMode.mutual ? read(settings.clientCaFile()) : new byte[0]);
        }

        private static byte[] read(Path file) throws TlsMaterialException {
            try {
                return java.nio.file.Files.readAllBytes(file);
            } catch (NoSuchFileException e) {
                throw new TlsMaterialException(file + ": no such file");
            } catch (IOException e) {
                throw new TlsMaterialException(file + ": cannot read: " + e, e);
            }
        }

        /** SHA-256 over the three contents, each prefixed by its length. */
        String digest() {
            try {
                MessageDigest sha = MessageDigest.getInstance("SHA-256");
                for (byte[] part : List.of(cert, key, clientCa)) {
                    sha.update(Integer.toString(part.length).getBytes(StandardCharsets.US_ASCII));
                    sha.update((byte) ':');
                    sha.update(part);
                }
                return HexFormat.of().formatHex(sha.digest());
            } catch (NoSuchAlgorithmException e) {
                throw new IllegalStateException(e);
            }
        }
    }

    /** Reads and checks the material named by {@code settings}; the exception names the file and the problem. */
    public static TlsMaterial load(TlsSettings settings) throws TlsMaterialException {
        return parse(settings, Files.read(settings), Instant.now());
    }

    static TlsMaterial parse(TlsSettings settings, Files files, Instant now) throws TlsMaterialException {
        List<X509Certificate> chain = Pem.certificates(settings.certFile(), files.cert());
        PrivateKey key = Pem.privateKey(settings.keyFile(), files.key());
        X509Certificate leaf = chain.get(0);
        try {
            leaf.checkValidity(Date.from(now));
        } catch (CertificateExpiredException e) {
            throw new TlsMaterialException(settings.certFile() + ": the serving certificate (the first one) expired at "
                    + leaf.getNotAfter().toInstant());
        } catch (CertificateNotYetValidException e) {
            throw new TlsMaterialException(settings.certFile()
                    + ": the serving certificate (the first one) is not valid before "
                    + leaf.getNotBefore().toInstant());
        }
        if (!matches(key, leaf)) {
            throw new TlsMaterialException(settings.keyFile() + ": the private key does not belong to the first"
                    + " certificate of " + settings.certFile() + " (" + leaf.getSubjectX500Principal() + ")");
        }
        List<X509Certificate> clientCas = settings.mode() == TlsMode.mutual
                ? Pem.certificates(settings.clientCaFile(), files.clientCa())
                : List.of();
        KeyStore keyStore;
        try {
            keyStore = emptyStore();
            keyStore.setKeyEntry(
                    "serving", key, KEY_STORE_PASSWORD.toCharArray(), chain.toArray(new X509Certificate[0]));
        } catch (KeyStoreException e) {
            throw new TlsMaterialException(
                    settings.certFile() + ": the certificates do not form a chain (each one"
                            + " must be issued by the next, leaf first): " + e.getMessage(),
                    e);
        }
        KeyStore trustStore = emptyStore();
        for (int i = 0; i < clientCas.size(); i++) {
            try {
                trustStore.setCertificateEntry("client-ca-" + i, clientCas.get(i));
            } catch (KeyStoreException e) {
                throw new TlsMaterialException(
                        settings.clientCaFile() + ": certificate " + (i + 1) + " cannot be trusted: " + e.getMessage(),
                        e);
            }
        }
        return new TlsMaterial(chain, clientCas, keyStore, trustStore);
    }

    private static KeyStore emptyStore() {
        try {
            KeyStore store = KeyStore.getInstance("PKCS12");
            store.load(null, null);
            return store;
        } catch (GeneralSecurityException | IOException e) {
            throw new IllegalStateException("cannot create an in-memory key store", e);
        }
    }

    /** Whether {@code key} signs what the leaf's public key verifies. */
    private static boolean matches(PrivateKey key, X509Certificate leaf) {
        String algorithm = key.getAlgorithm().equals("EC") ? "SHA256withECDSA" : "SHA256with" + key.getAlgorithm();
        if (!leaf.getPublicKey().getAlgorithm().equals(key.getAlgorithm())) {
            return false;
        }
        try {
            byte[] probe = "schedulerops key check".getBytes(StandardCharsets.US_ASCII);
            Signature signer = Signature.getInstance(algorithm);
            signer.initSign(key);
            signer.update(probe);
            byte[] signature = signer.sign();
            Signature verifier = Signature.getInstance(algorithm);
            verifier.initVerify(leaf.getPublicKey());
            verifier.update(probe);
            return verifier.verify(signature);
        } catch (GeneralSecurityException e) {
            return false;
        }
    }

    /** The serving certificate (the chain's first). */
    public X509Certificate leaf() {
        return chain.get(0);
    }

    public List<X509Certificate> clientCas() {
        return clientCas;
    }

    /** A key store holding the serving key and chain under {@link #KEY_STORE_PASSWORD}. */
    KeyStore keyStore() {
        return keyStore;
    }

    /** A trust store holding every client CA (empty unless mutual). */
    KeyStore trustStore() {
        return trustStore;
    }
}
