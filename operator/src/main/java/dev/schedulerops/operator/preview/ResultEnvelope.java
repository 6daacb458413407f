package dev.schedulerops.operator.preview;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.TreeMap;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;

/**
 * How a sandbox pod hands its result to the operator: on its log (the operator reads it with pods/log, the only
 * channel that needs no write from the sandbox), as marked lines of at most {@link #CHUNK} characters (container
 * runtimes split longer lines), the JSON gzipped and base64-encoded. Pure.
 */
public final class ResultEnvelope {
    static final String MARKER = "SCHEDULEROPS_SANDBOX_RESULT";
    static final String FAILURE = "SCHEDULEROPS_SANDBOX_FAILURE";
    static final int CHUNK = 4000;

    private ResultEnvelope() {}

    /** The lines that carry a result. */
    public static List<String> lines(SandboxResult result) {
        String encoded = Base64.getEncoder().encodeToString(gzip(Json.write(result)));
        List<String> lines = new ArrayList<>();
        int parts = Math.max(1, (encoded.length() + CHUNK - 1) / CHUNK);
        for (int i = 0; i < parts; i++) {
            String chunk = encoded.substring(i * CHUNK, Math.min(encoded.length(), (i + 1) * CHUNK));
            lines.add(MARKER + " " + (i + 1) + "/" + parts + " " + chunk);
        }
        return lines;
    }

    /** The line that says a sandbox failed, and why. */
    public static String failure(String message) {
        return FAILURE + " " + message.replace('\n', ' ');
    }

    public sealed interface Read {}

    public record Found(SandboxResult result) implements Read {}

    public record Failed(String message) implements Read {}

    /** The result or the failure a sandbox's log carries, if it carries a complete one. */
    public static Optional<Read> read(String log) {
        TreeMap<Integer, String> chunks = new TreeMap<>();
        int parts = -1;
        for (String line : log.split("\n")) {
            int at = line.indexOf(MARKER + " ");
            int failed = line.indexOf(FAILURE + " ");
            if (failed >= 0) {
                return Optional.of(
                        new Failed(line.substring(failed + FAILURE.length() + 1).trim()));
            }
            if (at < 0) {
                continue;
            }
            String[] fields = line.substring(at + MARKER.length() + 1).trim().split(" ", 2);
            String[] position = fields[0].split("/");
            parts = Integer.parseInt(position[1]);
            chunks.put(Integer.parseInt(position[0]), fields.length > 1 ? fields[1] : "");
        }
        if (parts < 0 || chunks.size() != parts) {
            return Optional.empty();
        }
        String json = gunzip(Base64.getDecoder().decode(String.join("", chunks.values())));
        return Optional.of(new Found(Json.read(json, SandboxResult.class)));
    }

    private static byte[] gzip(String text) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (GZIPOutputStream out = new GZIPOutputStream(bytes)) {
            out.write(text.getBytes(StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    private static String gunzip(byte[] data) {
        try (GZIPInputStream in = new GZIPInputStream(new ByteArrayInputStream(data))) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
