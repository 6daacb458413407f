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
