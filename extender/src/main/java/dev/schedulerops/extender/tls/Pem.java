package dev.schedulerops.extender.tls;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.KeyFactory;
import java.security.NoSuchAlgorithmException;
import java.security.PrivateKey;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.InvalidKeySpecException;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** PEM decoding with the JDK alone: certificate bundles and unencrypted PKCS#8 private keys (EC or RSA). */
final class Pem {
    private static final Pattern BLOCK =
            Pattern.compile("-----BEGIN ([A-Z0-9 ]+)-----\\s*(.*?)-----END \\1-----", Pattern.DOTALL);
    private static final Pattern BEGIN = Pattern.compile("-----BEGIN ([A-Z0-9 ]+)-----");

    private Pem() {}

    private record Block(String label, byte[] der) {}

    private static List<Block> blocks(Path file, byte[] content, String expected) throws TlsMaterialException {
        String text = new String(content, StandardCharsets.US_ASCII);
        if (text.isBlank()) {
            throw new TlsMaterialException(file + ": the file is empty, expected PEM " + expected);
        }
        List<Block> blocks = new ArrayList<>();
        Matcher matcher = BLOCK.matcher(text);
        int begins = 0;
        Matcher begin = BEGIN.matcher(text);
        while (begin.find()) {
            begins++;
        }
        while (matcher.find()) {
            byte[] der;
            try {
                der = Base64.getMimeDecoder().decode(matcher.group(2).trim());
            } catch (IllegalArgumentException e) {
                throw new TlsMaterialException(file + ": PEM block " + (blocks.size() + 1) + " (" + matcher.group(1)
                        + ") is not valid base64: " + e.getMessage());
            }
            blocks.add(new Block(matcher.group(1), der));
        }
        if (begins == 0) {
            throw new TlsMaterialException(file + ": no PEM block found (expected " + expected
                    + " between -----BEGIN and -----END lines; DER files are not read)");
        }
        if (begins != blocks.size()) {
            throw new TlsMaterialException(file + ": " + begins + " -----BEGIN lines but only " + blocks.size()
                    + " complete PEM blocks (is the file truncated?)");
        }
        return blocks;
    }

    /** Every certificate of a PEM bundle, in file order; any other kind of block is an error. */
    static List<X509Certificate> certificates(Path file, byte[] content) throws TlsMaterialException {
        List<Block> blocks = blocks(file, content, "CERTIFICATE blocks");
        List<X509Certificate> certificates = new ArrayList<>();
        CertificateFactory factory;
        try {
            factory = CertificateFactory.getInstance("X.509");
        } catch (CertificateException e) {
            throw new IllegalStateException("the JDK has no X.509 certificate factory", e);
        }
        for (Block block : blocks) {
            int index = certificates.size() + 1;
            if (!block.label().equals("CERTIFICATE")) {
                throw new TlsMaterialException(file + ": PEM block " + index + " is a " + block.label()
                        + ", only CERTIFICATE blocks are expected in this file");
            }
            try {
                certificates.add((X509Certificate) factory.generateCertificate(new ByteArrayInputStream(block.der())));
            } catch (CertificateException | ClassCastException e) {
                throw new TlsMaterialException(
                        file + ": PEM block " + index + " is not a valid X.509 certificate: " + e.getMessage(), e);
            }
        }
        return certificates;
    }

    /** The one unencrypted PKCS#8 private key ({@code -----BEGIN PRIVATE KEY-----}) of the file, EC or RSA. */
    static PrivateKey privateKey(Path file, byte[] content) throws TlsMaterialException {
        List<Block> blocks = blocks(file, content, "one PRIVATE KEY block (PKCS#8)");
        if (blocks.size() != 1) {
            throw new TlsMaterialException(
                    file + ": " + blocks.size() + " PEM blocks, expected exactly one PRIVATE KEY block");
        }
        Block block = blocks.get(0);
        String convert = ", convert it with: openssl pkcs8 -topk8 -nocrypt -in " + file.getFileName();
        switch (block.label()) {
            case "PRIVATE KEY" -> {}
            case "EC PRIVATE KEY" -> throw new TlsMaterialException(file
                    + ": the key is in SEC1 form (BEGIN EC PRIVATE KEY), PKCS#8 (BEGIN PRIVATE KEY) is required"
                    + convert);
            case "RSA PRIVATE KEY" -> throw new TlsMaterialException(file
                    + ": the key is in PKCS#1 form (BEGIN RSA PRIVATE KEY), PKCS#8 (BEGIN PRIVATE KEY) is required"
                    + convert);
            case "ENCRYPTED PRIVATE KEY" -> throw new TlsMaterialException(
                    file + ": the key is encrypted, an unencrypted PKCS#8 key (BEGIN PRIVATE KEY) is required");
            default -> throw new TlsMaterialException(
                    file + ": found a " + block.label() + " block, expected a PRIVATE KEY block (PKCS#8)");
        }
        PKCS8EncodedKeySpec spec = new PKCS8EncodedKeySpec(block.der());
        for (String algorithm : List.of("EC", "RSA")) {
            try {
                return KeyFactory.getInstance(algorithm).generatePrivate(spec);
            } catch (InvalidKeySpecException e) {
                // try the next algorithm
            } catch (NoSuchAlgorithmException e) {
                throw new IllegalStateException("the JDK lacks the " + algorithm + " key factory", e);
            }
        }
        throw new TlsMaterialException(file + ": the PRIVATE KEY block is not a valid PKCS#8 EC or RSA key");
    }
}
