package dev.schedulerops.e2e.support;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.schedulerops.operator.preview.LoopbackPorts;
import dev.schedulerops.operator.tls.CertificateIssuer;
import dev.schedulerops.operator.tls.Issued;
import dev.schedulerops.operator.tls.RotationPolicy;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Asks the real kube-scheduler binary whether it accepts a KubeSchedulerConfiguration, the way it would at
 * start-up: {@code --config} loads and strictly decodes it, validates it and builds every profile's framework
 * (unknown plugins, plugins at points they do not implement, bad plugin args), then {@code --write-config-to}
 * writes the completed config and exits 0 before anything is served or scheduled.
 *
 * <p>One start-up check comes after {@code --write-config-to} has exited: kube-scheduler creates its leader elector
 * in Run, and client-go refuses a lease configuration there (renewDeadline not above 1.2 x retryPeriod) that the
 * config validation let through. When the written config elects a leader, {@link LeaderElectorCheck} asks the same
 * client-go of the same release.
 *
 * <p>Nothing contacts an API server: kube-scheduler only needs to be able to build a client, so
 * {@code --master} names an address that is never dialled; {@code --secure-port} is a free loopback port, so the
 * serving flags are checked as in the pod, and nothing is served before it exits.
 */
public final class SchedulerConfigAcceptance {
    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    private static final Pattern COMMAND_FAILED = Pattern.compile("\"command failed\" err=\"((?:[^\"\\\\]|\\\\.)*)\"");
    private static final AtomicInteger SEQUENCE = new AtomicInteger();
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

    private final Path kubeScheduler;
    private final Path workDir;
    private final boolean serving;
    private final LeaderElectorCheck leaderElector;

    public SchedulerConfigAcceptance(Path kubeScheduler, Path workDir) {
        this(kubeScheduler, workDir, true);
    }

    private SchedulerConfigAcceptance(Path kubeScheduler, Path workDir, boolean serving) {
        this.kubeScheduler = kubeScheduler;
        this.workDir = workDir;
        this.serving = serving;
        this.leaderElector = LeaderElectorCheck.besides(kubeScheduler);
    }

    /**
     * Judges the config alone, with {@code --secure-port=0}: the serving flags go unchecked and kube-scheduler makes
     * no self-signed serving certificate, which is most of a run's cost (0.07 s instead of 0.45 s for 1.33 on the
     * 2-core machine). For corpora of configs that pass no serving flags.
     */
    public static SchedulerConfigAcceptance configOnly(Path kubeScheduler, Path workDir) {
        return new SchedulerConfigAcceptance(kubeScheduler, workDir, false);
    }

    /** With the binaries {@code e2e/cluster build} made; no cluster needed. */
    public static SchedulerConfigAcceptance usingBuiltBinaries() {
        return new SchedulerConfigAcceptance(
                KubernetesBinaries.locate().kubeScheduler(),
                E2eSettings.targetDir().resolve("scheduler-acceptance"));
    }

    public sealed interface Verdict permits Accepted, Rejected {
        boolean accepted();
    }

    /** {@code effectiveConfig} is what kube-scheduler wrote: the input with every default filled in. */
    public record Accepted(String effectiveConfig) implements Verdict {
        @Override
        public boolean accepted() {
            return true;
        }
    }

    /** {@code message} is kube-scheduler's error ({@code err=...} of its "command failed" line). */
    public record Rejected(String message, String stderr) implements Verdict {
        @Override
        public boolean accepted() {
            return false;
        }
    }

    public Verdict check(String configYaml) {
        return check(configYaml, List.of());
    }

    /** The config with further command-line flags, as the scheduler's container passes them after --config. */
    public Verdict check(String configYaml, List<String> flags) {
        try {
            Path dir = Files.createDirectories(workDir.resolve("check-" + SEQUENCE.incrementAndGet()));
            Path config = dir.resolve("config.yaml");
            Files.writeString(config, withTlsFilesIn(configYaml, dir), StandardCharsets.UTF_8);
            return check(config, flags);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The extenders' {@code tlsConfig} names files that exist in the scheduler's pod (its mounted client Secret), and
     * kube-scheduler reads and parses them while it builds its extenders. To judge the config as it would be judged
     * in the pod, each named file is written into {@code dir} with a valid PEM of its kind (a throwaway CA and a client
     * certificate signed by it) and the path rewritten; everything else is left as rendered.
     */
    static String withTlsFilesIn(String configYaml, Path dir) throws IOException {
        if (!configYaml.contains("tlsConfig")) {
            return configYaml;
        }
        JsonNode root = YAML.readTree(configYaml);
        if (!(root instanceof ObjectNode) || !root.path("extenders").isArray()) {
            return configYaml;
        }
        for (JsonNode extender : root.path("extenders")) {
            if (!(extender.path("tlsConfig") instanceof ObjectNode tls)) {
                continue;
            }
            Path files = Files.createDirectories(dir.resolve("tls-" + SEQUENCE.incrementAndGet()));
            for (Map.Entry<String, String> field : Map.of(
                            "caFile", ThrowawayTls.CA,
                            "certFile", ThrowawayTls.CERT,
                            "keyFile", ThrowawayTls.KEY)
                    .entrySet()) {
                if (tls.path(field.getKey()).isTextual()
                        && !tls.path(field.getKey()).asText().isEmpty()) {
                    Path file = files.resolve(field.getKey() + ".pem");
                    Files.writeString(file, field.getValue(), StandardCharsets.UTF_8);
                    tls.put(field.getKey(), file.toAbsolutePath().toString());
                }
            }
        }
        return YAML.writeValueAsString(root);
    }

    /** One CA and one client certificate it signed, PEM, made once per test JVM. */
    private static final class ThrowawayTls {
        static final String CA;
        static final String CERT;
        static final String KEY;

        static {
            CertificateIssuer issuer = new CertificateIssuer();
            Instant now = Instant.now();
            RotationPolicy.Validity validity =
                    new RotationPolicy.Validity(now.minus(Duration.ofMinutes(5)), now.plus(Duration.ofDays(1)));
            Issued ca = issuer.ca("scheduler-config-acceptance-ca", validity);
            Issued client = issuer.client(ca, "scheduler-config-acceptance", validity);
            CA = ca.certificatePem();
            CERT = client.certificatePem();
            KEY = client.keyPem();
        }
    }

    public Verdict check(Path configFile) {
        return check(configFile, List.of());
    }

    public Verdict check(Path configFile, List<String> flags) {
        try {
            Path dir = Files.createDirectories(workDir.resolve("run-" + SEQUENCE.incrementAndGet()));
            Path written = dir.resolve("effective-config.yaml");
            Path stderr = dir.resolve("stderr.log");
            List<String> command = new ArrayList<>(List.of(
                    kubeScheduler.toString(),
                    "--config=" + configFile.toAbsolutePath(),
                    "--write-config-to=" + written,
                    // A real port on loopback, as in the pod: with 0 the serving flags (tls-min-version, ...) go
                    // unchecked.
                    "--secure-port=" + (serving ? LoopbackPorts.free() : 0),
                    "--bind-address=127.0.0.1",
                    "--master=https://127.0.0.1:1"));
            command.addAll(flags);
            Process process = new ProcessBuilder(command)
                    .directory(dir.toFile())
                    .redirectOutput(dir.resolve("stdout.log").toFile())
                    .redirectError(stderr.toFile())
                    .start();
            if (!process.waitFor(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly();
                throw new IllegalStateException("kube-scheduler neither accepted nor rejected " + configFile
                        + " within " + TIMEOUT + " (is --write-config-to honoured?)");
            }
            String errors = Files.readString(stderr, StandardCharsets.UTF_8);
            if (process.exitValue() == 0 && Files.exists(written)) {
                String effective = Files.readString(written, StandardCharsets.UTF_8);
                return leaderElectorRefusal(effective)
                        .<Verdict>map(refusal -> new Rejected(refusal, errors))
                        .orElseGet(() -> new Accepted(effective));
            }
            return new Rejected(errorMessage(errors), errors);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** What the leader elector says of the written config's lease settings, when it elects a leader. */
    private Optional<String> leaderElectorRefusal(String effectiveConfig) throws IOException {
        JsonNode election = YAML.readTree(effectiveConfig).path("leaderElection");
        if (!election.path("leaderElect").asBoolean(false)) {
            return Optional.empty();
        }
        return leaderElector.refusal(
                election.path("leaseDuration").asText(),
                election.path("renewDeadline").asText(),
                election.path("retryPeriod").asText());
    }

    static String errorMessage(String stderr) {
        Matcher matcher = COMMAND_FAILED.matcher(stderr);
        if (matcher.find()) {
            return matcher.group(1).replace("\\\"", "\"").replace("\\n", "\n").replace("\\\\", "\\");
        }
        List<String> lines = stderr.lines().filter(l -> !l.isBlank()).toList();
        return String.join("\n", lines.subList(Math.max(0, lines.size() - 5), lines.size()));
    }
}
