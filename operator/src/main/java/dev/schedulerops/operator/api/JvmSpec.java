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
     * The option families a user of the bundled extender needs, and nothing else: heap and GC sizing, the choice of a
     * garbage collector, GC logging to standard output, and a few -D keys of the JDK's networking and locale. An
     * allowlist, not a denylist: the JVM reads code, files and remote URLs through more options and system properties
     * than any list of refusals can name (-Dlogback.configurationFile=http://... loads a remote logging config). The
     * heap maximum is maxRAMPercentage's (no -Xmx, no -XX:MaxRAMPercentage), and nothing writes files (no heap dumps:
     * they would hold the extender's serving key). An RE2 expression without backslashes ([.] for a dot), so that the
     * CRD's CEL rule (a CEL string literal) and {@code JvmRules} use the very same text.
     */
    public static final String ALLOWED_OPTION = "^("
            + "-X(ss|mn)[0-9]{1,6}[kKmMgG]?"
            + "|-XX:(InitialRAMPercentage|MinRAMPercentage)=[0-9]{1,2}([.][0-9]{1,3})?"
            + "|-XX:(MaxMetaspaceSize|MetaspaceSize|CompressedClassSpaceSize|ReservedCodeCacheSize|MaxDirectMemorySize"
            + "|G1HeapRegionSize|SoftMaxHeapSize)=[0-9]{1,9}[kKmMgG]?"
            + "|-XX:(MaxGCPauseMillis|GCTimeRatio|ParallelGCThreads|ConcGCThreads|ActiveProcessorCount|CICompilerCount"
            + "|TieredStopAtLevel|MinHeapFreeRatio|MaxHeapFreeRatio)=[0-9]{1,6}"
            + "|-XX:[+-](UseSerialGC|UseParallelGC|UseG1GC|UseZGC|ZGenerational|UseShenandoahGC|AlwaysPreTouch"
            + "|UseStringDeduplication|TieredCompilation|ExplicitGCInvokesConcurrent)"
            + "|-Xlog:gc[a-z+*=,]{0,64}(:stdout(:[a-z,]{0,64})?)?"
            + "|-Djava[.]net[.]prefer(IPv4Stack|IPv6Addresses)=(true|false)"
            + "|-Dsun[.]net[.]inetaddr[.](negative[.])?ttl=-?[0-9]{1,6}"
            + "|-Duser[.]timezone=[A-Za-z0-9/_+-]{1,64}"
            + "|-Dfile[.]encoding=[A-Za-z0-9_-]{1,32}"
            + ")$";

    /** The CEL rule on options; JvmRules applies {@link #ALLOWED_OPTION} the same way. */
    public static final String OPTIONS_RULE = "self.all(o, o.matches('" + ALLOWED_OPTION + "'))";

    public static final String OPTIONS_MESSAGE = "JVM options are limited to heap and GC sizing (-Xss, -Xmn,"
            + " -XX:InitialRAMPercentage, -XX:MinRAMPercentage, -XX:MaxMetaspaceSize, -XX:MetaspaceSize,"
            + " -XX:CompressedClassSpaceSize, -XX:ReservedCodeCacheSize, -XX:MaxDirectMemorySize, -XX:G1HeapRegionSize,"
            + " -XX:SoftMaxHeapSize, -XX:MaxGCPauseMillis, -XX:GCTimeRatio, -XX:ParallelGCThreads, -XX:ConcGCThreads,"
            + " -XX:ActiveProcessorCount, -XX:CICompilerCount, -XX:TieredStopAtLevel, -XX:MinHeapFreeRatio,"
            + " -XX:MaxHeapFreeRatio), a garbage collector and its switches (-XX:+UseSerialGC, -XX:+UseParallelGC,"
            + " -XX:+UseG1GC, -XX:+UseZGC, -XX:+ZGenerational, -XX:+UseShenandoahGC, -XX:+AlwaysPreTouch,"
            + " -XX:+UseStringDeduplication, -XX:+TieredCompilation, -XX:+ExplicitGCInvokesConcurrent, each also with"
            + " -), GC logging to stdout (-Xlog:gc...[:stdout[:decorators]]) and -D of java.net.preferIPv4Stack,"
            + " java.net.preferIPv6Addresses, sun.net.inetaddr.ttl, sun.net.inetaddr.negative.ttl, user.timezone and"
            + " file.encoding; the maximum heap is maxRAMPercentage";

    @JsonPropertyDescription("Maximum heap as a percentage of the container's memory limit (the JVM reads the limit"
            + " from its cgroup), 10 to 90. Defaults to 75; the rest is for metaspace, thread stacks, code cache and"
            + " direct buffers. Lower it when the limit is small.")
    @Min(Defaults.MIN_MAX_RAM_PERCENTAGE)
    @Max(Defaults.MAX_MAX_RAM_PERCENTAGE)
    @Default("" + Defaults.MAX_RAM_PERCENTAGE)
    private Integer maxRAMPercentage;

    @JsonPropertyDescription("Extra JVM options after the heap setting, e.g. -XX:+UseSerialGC or -Xss512k, each at most"
            + " 256 characters. Only these families are allowed: heap and GC sizing, the choice of a garbage"
            + " collector, GC logging to stdout (-Xlog:gc*), and -D of java.net.preferIPv4Stack,"
            + " java.net.preferIPv6Addresses, sun.net.inetaddr.ttl, sun.net.inetaddr.negative.ttl, user.timezone and"
            + " file.encoding (the full list: docs/profiles.md). Anything else, agents, option files, other system"
            + " properties, heap dumps, -Xmx, is refused at admission.")
    @Size(max = Defaults.MAX_JVM_OPTIONS)
    @ValidationRule(value = OPTIONS_RULE, message = OPTIONS_MESSAGE)
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
