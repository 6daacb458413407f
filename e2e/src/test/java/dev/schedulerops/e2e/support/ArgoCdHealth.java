package dev.schedulerops.e2e.support;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A resource health check as Argo CD itself evaluates it: {@code argocd admin settings resource-overrides health OBJECT
 * --argocd-cm-path CM} runs the custom health Lua of an argocd-cm ConfigMap through the same
 * {@code lua.ResourceHealthOverrides} the application controller uses (gopher-lua), with no cluster.
 */
public final class ArgoCdHealth {
    private static final YAMLMapper YAML = new YAMLMapper();
    private static final Pattern STATUS = Pattern.compile("(?m)^STATUS: (.*)$");
    private static final Pattern MESSAGE = Pattern.compile("(?ms)^MESSAGE: (.*?)\\s*\\z");

    public record Health(String status, String message) {}

    private final Path argocd;
    private final Path argocdCm;
    private final Path dir;

    /** @param argocdCm the argocd-cm ConfigMap (its file is written into {@code dir}) */
    public ArgoCdHealth(Path argocd, JsonNode argocdCm, Path dir) {
        this.argocd = argocd;
        this.dir = dir;
        this.argocdCm = dir.resolve("argocd-cm.yaml");
        try {
            Files.createDirectories(dir);
            Files.writeString(this.argocdCm, YAML.writeValueAsString(argocdCm));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The health Argo CD gives {@code object} (a live object as the API server returns it). */
    public Health of(JsonNode object) {
        try {
            Path file = Files.createTempFile(dir, "object-", ".yaml");
            Files.writeString(file, YAML.writeValueAsString(object));
            Commands.Result result = Commands.run(
                            List.of(
                                    argocd.toString(),
                                    "admin",
                                    "settings",
                                    "resource-overrides",
                                    "health",
                                    file.toString(),
                                    "--argocd-cm-path",
                                    argocdCm.toString()),
                            null,
                            // Offline: it must never fall back to the user's kubeconfig.
                            Map.of("KUBECONFIG", "/dev/null"),
                            Duration.ofSeconds(60))
                    .requireSuccess("argocd admin settings resource-overrides health");
            Files.delete(file);
            Matcher status = STATUS.matcher(result.stdout());
            Matcher message = MESSAGE.matcher(result.stdout());
            if (!status.find()) {
                throw new AssertionError("argocd printed no STATUS: " + result.stdout() + result.stderr());
            }
            return new Health(status.group(1).trim(), message.find() ? message.group(1) : "");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
