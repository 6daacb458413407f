package dev.schedulerops.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Turns JMH's JSON results and the load test's JSON lines into Markdown tables, appended to a report. Usage:
 * {@code Report JMH.json LOAD.jsonl REPORT.md}. MB are 10^6 bytes.
 */
public final class Report {
    private static final ObjectMapper JSON = new ObjectMapper();

    private Report() {}

    public static void main(String[] args) throws IOException {
        StringBuilder md = new StringBuilder();
        md.append("\n## JMH: decode + verb, one thread, in process\n\n")
                .append(
                        "| benchmark | mode | nodes | request bytes | ops/s | ± (99.9%) | ms/op | MB/s of request body |\n")
                .append("|---|---|---:|---:|---:|---:|---:|---:|\n");
        Map<String, Integer> sizes = new HashMap<>();
        for (JsonNode result : JSON.readTree(Path.of(args[0]).toFile())) {
            String benchmark = result.get("benchmark").asText().replaceAll(".*\\.", "");
            String mode = result.at("/params/mode").asText();
            int nodes = result.at("/params/nodes").asInt();
            int bytes = sizes.computeIfAbsent(
                    mode + nodes,
                    k -> (mode.equals("full") ? NodeJson.fullNodesRequest(nodes) : NodeJson.namesOnlyRequest(nodes))
                            .length);
            double ops = result.at("/primaryMetric/score").asDouble();
            double error = result.at("/primaryMetric/scoreError").asDouble();
            md.append(String.format(
                    Locale.ROOT,
                    "| %s | %s | %d | %,d | %,.1f | %,.1f | %.3f | %,.0f |%n",
                    benchmark,
                    mode,
                    nodes,
                    bytes,
                    ops,
                    error,
                    1000 / ops,
                    ops * bytes / 1e6));
        }
        md.append("\n## Load test: HTTP/1.1 keep-alive over loopback, closed loop\n\n")
                .append(
                        "| server | path | mode | nodes | request bytes | reply bytes | concurrency | seconds | requests |"
                                + " errors | req/s | p50 ms | p90 ms | p99 ms | max ms |\n")
                .append("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        List<String> lines = Files.readAllLines(Path.of(args[1]), StandardCharsets.UTF_8);
        for (String line : lines) {
            if (line.isBlank()) {
                continue;
            }
            JsonNode r = JSON.readTree(line);
            md.append(String.format(
                    Locale.ROOT,
                    "| %s | %s | %s | %d | %,d | %,d | %d | %d | %,d | %d | %,.0f | %.3f | %.3f | %.3f | %.3f |%n",
                    r.path("target").asText("extender"),
                    r.get("path").asText(),
                    r.get("mode").asText(),
                    r.get("nodes").asInt(),
                    r.get("requestBytes").asInt(),
                    r.path("replyBytes").asLong(),
                    r.get("concurrency").asInt(),
                    r.get("seconds").asInt(),
                    r.get("requests").asLong(),
                    r.get("errors").asLong(),
                    r.get("rps").asDouble(),
                    r.get("p50ms").asDouble(),
                    r.get("p90ms").asDouble(),
                    r.get("p99ms").asDouble(),
                    r.get("maxms").asDouble()));
        }
        Files.writeString(
                Path.of(args[2]),
                md.toString(),
                StandardCharsets.UTF_8,
                java.nio.file.StandardOpenOption.CREATE,
                java.nio.file.StandardOpenOption.APPEND);
    }
}
