package dev.schedulerops.operator.preview;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.schedulerops.operator.render.Yaml;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The operator's KubeSchedulerConfiguration as the sandbox runs it. Only what connects it changes: the profile's
 * schedulerName becomes the run's (both runs may share one), leader election is off (one instance, no lease), the
 * client talks to the sandbox's API server, and the bundled extender is called on the sandbox's loopback without TLS
 * (TLS changes nothing in a placement). Plugins, their weights and args, the extender's verbs, weight, timeout,
 * nodeCacheCapable, managedResources and ignorable, percentageOfNodesToScore: all unchanged. Pure.
 */
public final class SandboxSchedulerConfig {
    /** Flags the sandbox sets itself (its addresses, logging, no leader election); the rest of a profile's stay. */
    static final Set<String> SANDBOX_FLAGS = Set.of(
            "config",
            "v",
            "vmodule",
            "logging-format",
            "bind-address",
            "secure-port",
            "kubeconfig",
            "master",
            "leader-elect",
            "leader-elect-lease-duration",
            "leader-elect-renew-deadline",
            "leader-elect-retry-period",
            "leader-elect-resource-lock",
            "leader-elect-resource-name",
            "leader-elect-resource-namespace",
            "cert-dir",
            "tls-cert-file",
            "tls-private-key-file",
            "authentication-kubeconfig",
            "authorization-kubeconfig",
            "write-config-to");

    private SandboxSchedulerConfig() {}

    /**
     * @param renderedYaml the configuration the operator renders for the profile
     * @param schedulerName the run's schedulerName in the sandbox
     * @param kubeconfig the sandbox API server's kubeconfig, as the scheduler sees it
     * @param extenderUrl the bundled extender in the sandbox, or null for a plugins-only profile
     */
    public static String adapt(String renderedYaml, String schedulerName, String kubeconfig, String extenderUrl) {
        ObjectNode config;
        try {
            config = (ObjectNode) Yaml.MAPPER.readTree(renderedYaml);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
        ObjectNode leader = config.putObject("leaderElection");
        leader.put("leaderElect", false);
        config.putObject("clientConnection").put("kubeconfig", kubeconfig);
        for (JsonNode profile : config.path("profiles")) {
            ((ObjectNode) profile).put("schedulerName", schedulerName);
        }
        JsonNode extenders = config.path("extenders");
        if (extenders.isArray() && !extenders.isEmpty()) {
            if (extenderUrl == null || extenders.size() > 1) {
                throw new IllegalArgumentException("the sandbox runs the bundled extender only");
            }
            ObjectNode bundled = (ObjectNode) ((ArrayNode) extenders).get(0);
            bundled.put("urlPrefix", extenderUrl);
            bundled.put("enableHTTPS", false);
            bundled.remove("tlsConfig");
        }
        return Yaml.write(config);
    }

    /** A profile's scheduler flags without those the sandbox sets itself. */
    public static List<String> keptFlags(List<String> flags) {
        List<String> kept = new ArrayList<>();
        for (String flag : flags) {
            String name = flag.replaceFirst("^--?", "").replaceFirst("=.*$", "");
            if (!SANDBOX_FLAGS.contains(name)) {
                kept.add(flag);
            }
        }
        return kept;
    }
}
