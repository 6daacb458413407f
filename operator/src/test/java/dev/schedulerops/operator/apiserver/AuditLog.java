package dev.schedulerops.operator.apiserver;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/** The tier API server's audit log ({@link ApiServerTier#auditLog()}), read as the requests it completed. */
final class AuditLog {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Set<String> WRITES = Set.of("create", "update", "patch", "delete", "deletecollection");

    private AuditLog() {}

    /**
     * One completed request.
     *
     * @param involvedObject for an Event (whose own name is generated), the name of the object it is about
     * @param uri the request's path and query, as the client sent it
     */
    record Request(
            String user,
            String verb,
            String resource,
            String subresource,
            String namespace,
            String name,
            String involvedObject,
            String uri) {
        boolean write() {
            return WRITES.contains(verb);
        }

        /** Whether it names (or, an Event, is about) an object whose name contains {@code id}. */
        boolean about(String id) {
            return name.contains(id) || involvedObject.contains(id);
        }

        @Override
        public String toString() {
            return verb + " " + resource + (subresource.isEmpty() ? "" : "/" + subresource) + " " + namespace + "/"
                    + name;
        }
    }

    /** Where the log ends now: pass it to {@link #since} to read what comes after. */
    static long size() {
        try {
            return Files.size(ApiServerTier.auditLog());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The requests completed after {@code offset}, in the log's order. */
    static List<Request> since(long offset) {
        List<Request> requests = new ArrayList<>();
        try (RandomAccessFile file =
                new RandomAccessFile(ApiServerTier.auditLog().toFile(), "r")) {
            file.seek(offset);
            byte[] rest = new byte[(int) (file.length() - offset)];
            file.readFully(rest);
            for (String line : new String(rest, StandardCharsets.UTF_8).split("\n")) {
                if (line.isBlank()) {
                    continue;
                }
                JsonNode event = JSON.readTree(line);
                if (!"ResponseComplete".equals(event.path("stage").asText())) {
                    continue;
                }
                JsonNode ref = event.path("objectRef");
                requests.add(new Request(
                        event.path("user").path("username").asText(),
                        event.path("verb").asText(),
                        ref.path("resource").asText(),
                        ref.path("subresource").asText(),
                        ref.path("namespace").asText(),
                        ref.path("name").asText(),
                        event.path("requestObject")
                                .path("involvedObject")
                                .path("name")
                                .asText(),
                        event.path("requestURI").asText()));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return requests;
    }
}
