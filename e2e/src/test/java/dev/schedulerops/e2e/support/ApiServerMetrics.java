package dev.schedulerops.e2e.support;

import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** What the API server's own /metrics counts, read through kubectl. */
public final class ApiServerMetrics {
    private ApiServerMetrics() {}

    /**
     * The API server's count of pod binding requests by status code ({@code apiserver_request_total}, POST
     * pods/binding), summed over its label sets. The count starts again at 0 when the API server restarts.
     */
    public static Map<String, Long> bindingRequests(Cluster cluster) {
        String metrics = cluster.kubectl("get", "--raw", "/metrics")
                .requireSuccess("kubectl get --raw /metrics")
                .stdout();
        Map<String, Long> byCode = new TreeMap<>();
        Matcher code = Pattern.compile("code=\"(\\d+)\"").matcher("");
        for (String line : metrics.lines().toList()) {
            if (line.startsWith("apiserver_request_total{")
                    && line.contains("resource=\"pods\"")
                    && line.contains("subresource=\"binding\"")
                    && line.contains("verb=\"POST\"")
                    && code.reset(line).find()) {
                long value = (long) Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
                byCode.merge(code.group(1), value, Long::sum);
            }
        }
        return byCode;
    }

    /**
     * Binding requests counted by status class, as tests check them: a 2xx is a binding made, a 409 a pod bound twice
     * (or bound by another scheduler first), a 5xx the API server failing a binding (kube-scheduler retries the pod
     * after its backoff), anything else a bug.
     */
    public record Bindings(long made, long conflicts, long serverErrors, long other, Map<String, Long> byCode) {
        public static Bindings of(Map<String, Long> byCode) {
            long made = 0, conflicts = 0, serverErrors = 0, other = 0;
            for (Map.Entry<String, Long> entry : byCode.entrySet()) {
                int code = Integer.parseInt(entry.getKey());
                if (code >= 200 && code < 300) {
                    made += entry.getValue();
                } else if (code == 409) {
                    conflicts += entry.getValue();
                } else if (code >= 500) {
                    serverErrors += entry.getValue();
                } else {
                    other += entry.getValue();
                }
            }
            return new Bindings(made, conflicts, serverErrors, other, byCode);
        }

        /**
         * The most failed bindings a run may see from a loaded API server and still pass: at most one in fifty and at
         * least one (a CI run saw one 504 in 75 bindings).
         */
        public long serverErrorBound() {
            return Math.max(1, (made + serverErrors) / 50);
        }
    }

    /** {@code after - before} per status code, without the codes that did not move. */
    public static Map<String, Long> difference(Map<String, Long> after, Map<String, Long> before) {
        Map<String, Long> delta = new TreeMap<>();
        after.forEach((code, count) -> {
            long d = count - before.getOrDefault(code, 0L);
            if (d != 0) {
                delta.put(code, d);
            }
        });
        return delta;
    }
}
