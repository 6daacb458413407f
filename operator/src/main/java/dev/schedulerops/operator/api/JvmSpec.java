package dev.schedulerops.operator.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;
import java.util.List;

/** The extender JVM: heap as a fraction of the container's memory limit, and extra options. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class JvmSpec {
    /**
     * Option prefixes refused, best effort: they load code into the extender (agents, boot class path, option files),
     * run commands (on error or out of memory), open a remote port (debugger, JMX) or go round maxRAMPercentage's
     * bounds. An image the user pins can do any of this anyway; the list keeps the bundled one closed by default.
     */
    public static final List<String> REFUSED_PREFIXES = List.of(
            "-javaagent",
            "-agentlib",
            "-agentpath",
            "-Xrun",
            "-Xbootclasspath",
            "-XX:VMOptionsFile",
            "-XX:Flags",
            "-XX:OnError",
            "-XX:OnOutOfMemoryError",
            "-Dcom.sun.management.jmxremote",
            "-XX:MaxRAMPercentage");

    /** Refused in an option: C's isspace, on which JAVA_TOOL_OPTIONS is split, and the quotes it honours. */
    public static final String REFUSED_CHARACTERS = " \t\n\r\f\u000B\"'";

    /** The CEL rule on options (the schema bounds their length); JvmRulesTest keeps it in step with JvmRules. */
    public static final String OPTIONS_RULE = "self.all(o, o.startsWith('-') && !o.contains(' ')"
            + " && !o.contains('\\t') && !o.contains('\\n') && !o.contains('\\r') && !o.contains('\\f')"
            + " && !o.contains('\\v') && !o.contains('\"') && !o.contains(\"'\"))";

    /** The CEL rule on refused prefixes; JvmRulesTest keeps it in step with REFUSED_PREFIXES. */
    public static final String REFUSED_RULE = "self.all(o, !o.startsWith('-javaagent') && !o.startsWith('-agentlib')"
            + " && !o.startsWith('-agentpath') && !o.startsWith('-Xrun') && !o.startsWith('-Xbootclasspath')"
            + " && !o.startsWith('-XX:VMOptionsFile') && !o.startsWith('-XX:Flags') && !o.startsWith('-XX:OnError')"
            + " && !o.startsWith('-XX:OnOutOfMemoryError') && !o.startsWith('-Dcom.sun.management.jmxremote')"
            + " && !o.startsWith('-XX:MaxRAMPercentage'))";

    public static final String REFUSED_MESSAGE = "JVM options may not load code, run commands, open a remote port or"
            + " set the heap percentage (use maxRAMPercentage): -javaagent, -agentlib, -agentpath, -Xrun,"
            + " -Xbootclasspath, -XX:VMOptionsFile, -XX:Flags, -XX:OnError, -XX:OnOutOfMemoryError,"
            + " -Dcom.sun.management.jmxremote and -XX:MaxRAMPercentage are refused";

    @JsonPropertyDescription("Maximum heap as a percentage of the container's memory limit (the JVM reads the limit"
            + " from its cgroup), 10 to 90. Defaults to 75; the rest is for metaspace, thread stacks, code cache and"
            + " direct buffers. Lower it when the limit is small.")
    @Min(Defaults.MIN_MAX_RAM_PERCENTAGE)
    @Max(Defaults.MAX_MAX_RAM_PERCENTAGE)
    @Default("" + Defaults.MAX_RAM_PERCENTAGE)
    private Integer maxRAMPercentage;

    @JsonPropertyDescription("Extra JVM options after the heap setting, e.g. -XX:+UseSerialGC or -Xss512k. Each starts"
            + " with '-', holds no whitespace or quotes and is at most 256 characters. Refused, best effort, as they"
            + " load code, run commands, open a remote port or go round maxRAMPercentage: -javaagent, -agentlib,"
            + " -agentpath, -Xrun, -Xbootclasspath, -XX:VMOptionsFile, -XX:Flags, -XX:OnError, -XX:OnOutOfMemoryError,"
            + " -Dcom.sun.management.jmxremote, -XX:MaxRAMPercentage. An option the JVM does not know stops the new"
            + " extender pods at start: Ready then says CrashLoopBackOff with the JVM's message, and the running"
            + " extender pods are kept (maxUnavailable 0).")
    @Size(max = Defaults.MAX_JVM_OPTIONS)
    @ValidationRule(value = OPTIONS_RULE, message = "each JVM option starts with '-' and holds no whitespace or quotes")
    @ValidationRule(value = REFUSED_RULE, message = REFUSED_MESSAGE)
    private List<@Size(max = Defaults.MAX_JVM_OPTION_LENGTH) String> options;

    public Integer getMaxRAMPercentage() {
        return maxRAMPercentage;
    }

    public void setMaxRAMPercentage(Integer maxRAMPercentage) {
        this.maxRAMPercentage = maxRAMPercentage;
    }

    public List<String> getOptions() {
        return options;
    }

    public void setOptions(List<String> options) {
        this.options = options;
    }
}
