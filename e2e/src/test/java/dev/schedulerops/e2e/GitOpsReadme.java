package dev.schedulerops.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.schedulerops.e2e.support.Commands;
import dev.schedulerops.e2e.support.E2eSettings;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The GitOps settings as deploy/README.md shows them ("GitOps"), read from the README itself so that the tests run
 * what users copy: the Flux Kustomization, its healthCheckExprs, the Argo CD Application, and the argocd-cm ConfigMap
 * (with deploy/argocd/health.lua where the README says to paste it).
 */
final class GitOpsReadme {
    static final String ARGOCD_HEALTH_KEY = "resource.customizations.health.schedulerops.dev_SchedulerProfile";
    private static final Pattern YAML_BLOCK = Pattern.compile("(?ms)^```yaml\\n(.*?)^```");

    private GitOpsReadme() {}

    /** The Flux Kustomization of "### Flux": the block with kind Kustomization and a sourceRef. */
    static ObjectNode fluxKustomization() {
        return yamlBlocks("### Flux").stream()
                .filter(b -> "Kustomization".equals(b.path("kind").asText())
                        && b.at("/spec/sourceRef").isObject())
                .map(b -> (ObjectNode) b.deepCopy())
                .reduce((a, b) -> {
                    throw new IllegalStateException("deploy/README.md shows two full Flux Kustomizations");
                })
                .orElseThrow(() -> new IllegalStateException("deploy/README.md shows no Flux Kustomization"));
    }

    /** The spec.healthCheckExprs of "### Flux". */
    static JsonNode fluxHealthCheckExprs() {
        return yamlBlocks("### Flux").stream()
                .map(b -> b.at("/spec/healthCheckExprs"))
                .filter(JsonNode::isArray)
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("deploy/README.md shows no healthCheckExprs"));
    }

    /** The Argo CD Application of "### Argo CD". */
    static ObjectNode argoApplication() {
        return yamlBlocks("### Argo CD").stream()
                .filter(b -> "Application".equals(b.path("kind").asText()))
                .map(b -> (ObjectNode) b.deepCopy())
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("deploy/README.md shows no Argo CD Application"));
    }

    /** The argocd-cm of "### Argo CD", its health entry holding deploy/argocd/health.lua. */
    static ObjectNode argocdCm() {
        ObjectNode cm = yamlBlocks("### Argo CD").stream()
                .filter(b -> "ConfigMap".equals(b.path("kind").asText())
                        && "argocd-cm".equals(b.at("/metadata/name").asText()))
                .map(b -> (ObjectNode) b.deepCopy())
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("deploy/README.md shows no argocd-cm"));
        JsonNode placeholder = cm.path("data").path(ARGOCD_HEALTH_KEY);
        if (!placeholder.asText().contains("paste deploy/argocd/health.lua here")) {
            throw new IllegalStateException("the argocd-cm of deploy/README.md has no " + ARGOCD_HEALTH_KEY
                    + " saying where health.lua goes: " + placeholder);
        }
        ((ObjectNode) cm.path("data")).put(ARGOCD_HEALTH_KEY, read(Path.of("deploy/argocd/health.lua")));
        return cm;
    }

    /** The YAML blocks of the section that starts with the heading {@code heading}, up to the next heading. */
    static List<JsonNode> yamlBlocks(String heading) {
        String readme = read(Path.of("deploy/README.md"));
        int start = readme.indexOf("\n" + heading + "\n");
        if (start < 0) {
            throw new IllegalStateException("deploy/README.md has no section " + heading);
        }
        int end = nextHeading(readme, start + heading.length() + 2);
        Matcher blocks = YAML_BLOCK.matcher(readme.substring(start, end));
        List<JsonNode> documents = new ArrayList<>();
        while (blocks.find()) {
            documents.addAll(Commands.yamlDocuments(blocks.group(1)));
        }
        return documents;
    }

    private static int nextHeading(String text, int from) {
        Matcher heading = Pattern.compile("(?m)^#{2,3} ").matcher(text);
        return heading.find(from) ? heading.start() : text.length();
    }

    private static String read(Path relative) {
        try {
            return Files.readString(E2eSettings.repoRoot().resolve(relative));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
