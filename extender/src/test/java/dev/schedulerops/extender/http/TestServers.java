package dev.schedulerops.extender.http;

import dev.schedulerops.extender.verbs.ExtenderVerbs;
import java.time.Duration;

/**
 * The one place the fuzzers create a real {@link ExtenderServer}: plain HTTP on 127.0.0.1, a free port, always ready.
 * When the server's constructor changes, only this has to follow.
 */
public final class TestServers {
    private TestServers() {}

    public static ExtenderServer plainHttp(ExtenderVerbs verbs, int maxBodyBytes, ExtenderMetrics metrics)
            throws Exception {
        return plainHttp(verbs, HttpLimits.withMaxBody(maxBodyBytes), metrics);
    }

    public static ExtenderServer plainHttp(ExtenderVerbs verbs, HttpLimits limits, ExtenderMetrics metrics)
            throws Exception {
        return new ExtenderServer("127.0.0.1", 0, limits, Duration.ofSeconds(2), verbs, () -> true, metrics).start();
    }

    /** The server's own count of answers with a 5xx status, from its metrics. */
    public static double serverErrors(ExtenderMetrics metrics) {
        return sumRequests(metrics, true);
    }

    /** Every request the server's handler counted. */
    public static double requestsCounted(ExtenderMetrics metrics) {
        return sumRequests(metrics, false);
    }

    private static double sumRequests(ExtenderMetrics metrics, boolean onlyServerErrors) {
        double sum = 0;
        for (String line : metrics.scrape().split("\n")) {
            if (!line.startsWith("schedulerops_extender_requests_total{")) {
                continue;
            }
            if (onlyServerErrors && !line.contains("code=\"5")) {
                continue;
            }
            sum += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
        }
        return sum;
    }
}
