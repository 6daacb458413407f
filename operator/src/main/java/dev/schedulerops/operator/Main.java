package dev.schedulerops.operator;

import dev.schedulerops.operator.cli.AwaitExtenderCommand;
import dev.schedulerops.operator.cli.ExplainCommand;
import dev.schedulerops.operator.cli.ReleaseLeaseCommand;
import dev.schedulerops.operator.cli.RenderCommand;
import dev.schedulerops.operator.cli.RunCommand;
import dev.schedulerops.operator.cli.SandboxCommand;
import dev.schedulerops.operator.model.ClusterFacts;
import picocli.CommandLine;
import picocli.CommandLine.Command;

@Command(
        name = "schedulerops-operator",
        mixinStandardHelpOptions = true,
        versionProvider = Main.Version.class,
        description = "Turns SchedulerProfiles into secondary kube-schedulers with the schedulerops extender.",
        subcommands = {
            RunCommand.class,
            RenderCommand.class,
            ExplainCommand.class,
            SandboxCommand.class,
            AwaitExtenderCommand.class,
            ReleaseLeaseCommand.class
        })
public final class Main implements Runnable {

    public static void main(String[] args) {
        // No subcommand means `run`, as the container image does.
        String[] effective = args.length == 0 ? new String[] {"run"} : args;
        System.exit(new CommandLine(new Main()).execute(effective));
    }

    @Override
    public void run() {
        new CommandLine(this).usage(System.out);
    }

    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            return new String[] {"schedulerops-operator " + ClusterFacts.BuildInfo.version()};
        }
    }
}
