package dev.schedulerops.e2e.support;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * client-go's leader elector of one release, asked through {@code e2e/src/test/go/leaderelectioncheck} (built by
 * {@code e2e/cluster build-schedulers} inside the release's own module, next to its kube-scheduler). kube-scheduler
 * creates the elector in Run, after {@code --write-config-to} has already exited, so a lease configuration it refuses
 * there is invisible to {@link SchedulerConfigAcceptance}'s start-up check: this asks the same code. One long-lived
 * process, started at the first question (most checks never elect a leader), questions one at a time; it ends with
 * its standard input when the JVM exits, or at {@link #close}.
 */
public final class LeaderElectorCheck implements AutoCloseable {
    private final Path binary;
    private Process process;
    private Writer in;
    private BufferedReader out;

    private LeaderElectorCheck(Path binary) {
        this.binary = binary;
    }

    private void start() throws IOException {
        process = new ProcessBuilder(binary.toString())
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
        in = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
        out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    }

    /** The check beside {@code kubeScheduler}; fails, naming the command to run, when it was not built. */
    public static LeaderElectorCheck besides(Path kubeScheduler) {
        BackgroundBuild.await(BackgroundBuild.SCHEDULERS);
        Path binary = kubeScheduler.resolveSibling("leader-election-check");
        if (!Files.isExecutable(binary)) {
            throw new IllegalStateException(binary + " is missing: run 'e2e/cluster build-schedulers'");
        }
        return new LeaderElectorCheck(binary);
    }

    /** Empty when the elector takes the three Go durations; else the error kube-scheduler would exit with. */
    public synchronized Optional<String> refusal(String leaseDuration, String renewDeadline, String retryPeriod) {
        try {
            if (process == null) {
                start();
            }
            in.write(leaseDuration + " " + renewDeadline + " " + retryPeriod + "\n");
            in.flush();
            String answer = out.readLine();
            if (answer == null) {
                throw new IllegalStateException("leader-election-check exited: " + process.waitFor());
            }
            if (answer.equals("ok")) {
                return Optional.empty();
            }
            if (answer.startsWith("refused: ")) {
                return Optional.of("couldn't create leader elector: " + answer.substring("refused: ".length()));
            }
            throw new IllegalStateException("leader-election-check could not judge " + leaseDuration + " "
                    + renewDeadline + " " + retryPeriod + ": " + answer);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    @Override
    public synchronized void close() {
        if (process != null) {
            process.destroy();
        }
    }
}
