package dev.schedulerops.operator.preview;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.LogWatch;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The steps of a sandbox pod (see {@link SandboxPodRenderer} for the pod): {@link #prepare} (an init container: the
 * files), then, while etcd, kube-apiserver and each run's extender and kube-scheduler start as sidecars, {@link
 * #drive} (the main container): reads the live cluster, fills the sandbox, waits until each run holds all of it,
 * places the pods and prints the result on its log. The live cluster is read with the sandbox's own ServiceAccount,
 * which may only read.
 */
public final class PodSandbox {
    private final SandboxPlan plan;
    private final SandboxLayout layout;

    public PodSandbox(SandboxPlan plan) {
        this.plan = plan;
        this.layout = SandboxLayout.inPod(
                plan.runs().stream().map(SandboxPlan.Run::name).toList());
    }

    public void prepare() throws IOException {
        SandboxFiles.write(layout, plan);
    }

    /**
     * @param live the live cluster: read for the snapshot, and for this pod's scheduler containers' logs
     * @param namespace this pod's namespace
     * @param pod this pod's name
     */
    public SandboxResult drive(KubernetesClient live, String namespace, String pod) throws IOException {
        Deadline deadline = Deadline.in(Duration.ofSeconds(plan.limits().timeoutSeconds()));
        long start = System.nanoTime();
        Map<String, SchedulerLog> logs = new HashMap<>();
        List<LogWatch> follows = new ArrayList<>();
        try {
            for (SandboxPlan.Run run : plan.runs()) {
                SchedulerLog log = new SchedulerLog(plan.detailedPods());
                logs.put(run.name(), log);
                follows.add(
                        follow(live, namespace, pod, SandboxPodRenderer.schedulerContainer(run.name()), log, deadline));
            }
            return SandboxDriver.fillAndDrive(live, plan, layout, logs, deadline, start, () -> {});
        } finally {
            follows.forEach(LogWatch::close);
        }
    }

    /**
     * Follows a scheduler container's log from its start, through the live API server (the kubelet serves it): a
     * container's output cannot be read from another container of the pod. Retries while the container starts.
     */
    private static LogWatch follow(
            KubernetesClient live,
            String namespace,
            String pod,
            String container,
            SchedulerLog log,
            Deadline deadline) {
        KubernetesClientException last = null;
        while (!deadline.passed()) {
            try {
                LogWatch watch = live.pods()
                        .inNamespace(namespace)
                        .withName(pod)
                        .inContainer(container)
                        .watchLog();
                Thread reader = new Thread(
                        () -> {
                            try (BufferedReader in = new BufferedReader(
                                    new InputStreamReader(watch.getOutput(), StandardCharsets.UTF_8))) {
                                for (String line; (line = in.readLine()) != null; ) {
                                    log.accept(line);
                                }
                            } catch (IOException e) {
                                // the follow ended with the sandbox
                            }
                        },
                        container + "-log");
                reader.setDaemon(true);
                reader.start();
                return watch;
            } catch (KubernetesClientException e) {
                last = e;
                deadline.pause(Duration.ofMillis(250));
            }
        }
        throw new SandboxException("could not follow the log of container " + container + ": "
                + (last == null ? "timed out" : last.getMessage()));
    }
}
