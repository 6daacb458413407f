package dev.schedulerops.e2e.support;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.StreamSupport;

/**
 * Runs the CLIs the tests drive (kubectl, helm, lua, java, e2e/cluster), in the repository root, and parses their
 * YAML and JSON.
 */
public final class Commands {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final YAMLMapper YAML = new YAMLMapper();
    private static String kubectl;

    private Commands() {}

    public record Result(int exitCode, String stdout, String stderr) {
        public Result requireSuccess(String what) {
            if (exitCode != 0) {
                throw new AssertionError(what + " failed (exit " + exitCode + "): " + stderr + stdout);
            }
            return this;
        }
    }

    public static Result run(List<String> command, Duration timeout) {
        return run(command, null, Map.of(), timeout);
    }

    public static Result run(List<String> command, String stdin, Duration timeout) {
        return run(command, stdin, Map.of(), timeout);
    }

    /** {@code command} with {@code environment} added to this JVM's; {@code stdin} may be null (no input). */
    public static Result run(List<String> command, String stdin, Map<String, String> environment, Duration timeout) {
        try {
            Path out = Files.createTempFile("schedulerops-cmd", ".out");
            Path err = Files.createTempFile("schedulerops-cmd", ".err");
            try {
                ProcessBuilder builder = new ProcessBuilder(command)
                        .directory(E2eSettings.repoRoot().toFile())
                        .redirectOutput(out.toFile())
                        .redirectError(err.toFile());
                builder.environment().putAll(environment);
                if (stdin == null) {
                    builder.redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
                }
                Process process = builder.start();
                if (stdin != null) {
                    try (var input = process.getOutputStream()) {
                        input.write(stdin.getBytes(StandardCharsets.UTF_8));
                    }
                }
                if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                    // Its children first: a killed process's children (a sandbox's etcd and kube-apiserver) live on.
                    process.descendants().forEach(ProcessHandle::destroyForcibly);
                    process.destroyForcibly();
                    throw new AssertionError(command + " did not finish within " + timeout);
                }
                return new Result(process.exitValue(), Files.readString(out), Files.readString(err));
            } finally {
                Files.deleteIfExists(out);
                Files.deleteIfExists(err);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("could not run " + command, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted running " + command, e);
        }
    }

    public static boolean onPath(String program) {
        return run(List.of("sh", "-c", "command -v " + program), Duration.ofSeconds(10))
                        .exitCode()
                == 0;
    }

    /**
     * The kubectl {@code e2e/cluster build} made (the cluster's version), else one on {@code PATH}. Fails, never
     * skips, when there is neither.
     */
    public static synchronized String kubectl() {
        if (kubectl == null) {
            Path built = Path.of(ClusterScript.runOrFail(Duration.ofSeconds(30), "bin")
                            .lastLine())
                    .resolve("kubectl");
            if (Files.isExecutable(built)) {
                kubectl = built.toString();
            } else if (onPath("kubectl")) {
                kubectl = "kubectl";
            } else {
                throw new IllegalStateException(
                        "no kubectl in " + built.getParent() + " nor on PATH: run 'e2e/cluster build' first");
            }
        }
        return kubectl;
    }

    /** {@code kubectl kustomize deploy/}, one node per object. */
    public static List<JsonNode> kustomize() {
        return kustomize("deploy");
    }

    /** {@code kubectl kustomize} of a directory relative to the repository root, e.g. deploy/overlays/namespaced. */
    public static List<JsonNode> kustomize(String directory) {
        return yamlDocuments(run(
                        List.of(
                                kubectl(),
                                "kustomize",
                                E2eSettings.repoRoot().resolve(directory).toString()),
                        Duration.ofMinutes(1))
                .requireSuccess("kubectl kustomize " + directory)
                .stdout());
    }

    public static List<JsonNode> yamlDocuments(String yaml) {
        try (var parser = new YAMLFactory().createParser(yaml)) {
            List<JsonNode> documents = new ArrayList<>();
            var iterator = YAML.readValues(parser, JsonNode.class);
            while (iterator.hasNext()) {
                JsonNode document = iterator.next();
                if (document != null && document.isObject()) {
                    documents.add(document);
                }
            }
            return documents;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static JsonNode json(String text) {
        try {
            return JSON.readTree(text);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** {@code Kind/namespace/name}. */
    public static String identity(JsonNode object) {
        return object.path("kind").asText() + "/"
                + object.at("/metadata/namespace").asText("") + "/"
                + object.at("/metadata/name").asText();
    }

    public static JsonNode find(List<JsonNode> objects, String kind, String name) {
        return objects.stream()
                .filter(o -> o.path("kind").asText().equals(kind))
                .filter(o -> o.at("/metadata/name").asText().equals(name))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no " + kind + " " + name + " rendered"));
    }

    public static Map<String, String> labels(JsonNode object) {
        Map<String, String> labels = new TreeMap<>();
        object.at("/metadata/labels")
                .fields()
                .forEachRemaining(e -> labels.put(e.getKey(), e.getValue().asText()));
        return labels;
    }

    public static List<String> strings(JsonNode array) {
        if (!(array instanceof ArrayNode)) {
            return List.of();
        }
        return StreamSupport.stream(array.spliterator(), false)
                .map(JsonNode::asText)
                .toList();
    }
}
