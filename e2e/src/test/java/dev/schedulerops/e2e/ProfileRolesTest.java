package dev.schedulerops.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.schedulerops.e2e.support.AwaitsBackgroundBuild;
import dev.schedulerops.e2e.support.BackgroundBuild;
import dev.schedulerops.e2e.support.Cluster;
import dev.schedulerops.e2e.support.ClusterExtension;
import dev.schedulerops.e2e.support.E2eSettings;
import dev.schedulerops.e2e.support.SchedulerVersions;
import dev.schedulerops.operator.model.Names;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The scheduler role the install ships, {@code schedulerops:kube-scheduler}, is {@code system:kube-scheduler} without
 * the Lease and LeaseCandidate rules: it grants every other permission that role grants, in each supported release
 * (read from the release's bootstrap policy source, which {@code e2e/cluster build-schedulers} downloads) and on the
 * e2e control plane itself, and nothing on leases.
 */
@AwaitsBackgroundBuild(BackgroundBuild.SCHEDULERS)
@ExtendWith(ClusterExtension.class)
class ProfileRolesTest {
    /** The rules a secondary scheduler must not have: the default scheduler's lease and its candidacy. */
    static final Set<String> LEASE_RESOURCES = Set.of("leases", "leasecandidates");

    static Stream<SchedulerVersions.Release> releases() {
        return SchedulerVersions.built().stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("releases")
    void theShippedRoleGrantsWhatEachReleasesKubeSchedulerRoleGrantsButLeases(SchedulerVersions.Release release)
            throws IOException {
        Path policy = release.kubernetesSources().resolve("plugin/pkg/auth/authorizer/rbac/bootstrappolicy");
        assertThat(policy.resolve("policy.go"))
                .as("the bootstrap policy of %s (e2e/cluster build-schedulers downloads it)", release)
                .isRegularFile();
        List<PolicyRule> upstream = kubeSchedulerRules(
                Files.readString(policy.resolve("policy.go")),
                Files.readString(policy.resolve("controller_policy.go")));
        assertThat(upstream).as("rules parsed from the %s source", release).hasSizeGreaterThan(15);
        assertCoveredButLeases(upstream, shipped(), release.toString());
    }

    @Test
    void theShippedRoleGrantsWhatTheClustersKubeSchedulerRoleGrantsButLeases(Cluster cluster) throws IOException {
        ClusterRole live = cluster.client()
                .rbac()
                .clusterRoles()
                .withName("system:kube-scheduler")
                .get();
        assertThat(live).isNotNull();
        assertCoveredButLeases(live.getRules(), shipped(), "the e2e control plane " + cluster.kubernetesVersion());
    }

    @Test
    void theShippedRoleGrantsNothingOnLeases() throws IOException {
        for (PolicyRule rule : shipped().getRules()) {
            assertThat(rule.getResources())
                    .doesNotContainAnyElementsOf(LEASE_RESOURCES)
                    .doesNotContain("*");
            assertThat(rule.getVerbs()).doesNotContain("*", "escalate", "bind", "impersonate");
        }
    }

    private static void assertCoveredButLeases(List<PolicyRule> upstream, ClusterRole shipped, String source) {
        List<String> missing = new ArrayList<>();
        for (PolicyRule rule : upstream) {
            if (rule.getResources().stream().anyMatch(LEASE_RESOURCES::contains)) {
                continue;
            }
            for (String group : rule.getApiGroups()) {
                for (String resource : rule.getResources()) {
                    for (String verb : rule.getVerbs()) {
                        if (!allows(shipped, group, resource, verb)) {
                            missing.add(verb + " " + resource + (group.isEmpty() ? "" : "." + group));
                        }
                    }
                }
            }
        }
        assertThat(missing)
                .as("what system:kube-scheduler of %s grants and %s does not", source, Names.SCHEDULER_CLUSTER_ROLE)
                .isEmpty();
    }

    private static boolean allows(ClusterRole role, String group, String resource, String verb) {
        return role.getRules().stream()
                .anyMatch(r -> r.getApiGroups().contains(group)
                        && r.getResources().contains(resource)
                        && r.getVerbs().contains(verb)
                        && (r.getResourceNames() == null || r.getResourceNames().isEmpty()));
    }

    private static ClusterRole shipped() throws IOException {
        try (InputStream in = Files.newInputStream(E2eSettings.repoRoot().resolve("deploy/rbac/profile-roles.yaml"))) {
            List<?> documents = new io.fabric8.kubernetes.client.utils.KubernetesSerialization().unmarshal(in);
            return documents.stream()
                    .map(ClusterRole.class::cast)
                    .filter(r -> r.getMetadata().getName().equals(Names.SCHEDULER_CLUSTER_ROLE))
                    .findFirst()
                    .orElseThrow();
        }
    }

    private static final Pattern RULE = Pattern.compile(
            "NewRule\\(([^)]*)\\)\\.Groups\\(([^)]*)\\)\\.Resources\\(([^)]*)\\)(\\.Names\\(([^)]*)\\))?");
    private static final Pattern GROUP_CONSTANT = Pattern.compile("(\\w+Group)\\s*=\\s*\"([^\"]*)\"");
    private static final Pattern VERB_SET = Pattern.compile("(\\w+)\\s*=\\s*\\[]string\\{([^}]*)}");

    /**
     * The rules of {@code system:kube-scheduler} as the release's bootstrap policy builds them: every NewRule(...)
     * between {@code kubeSchedulerRules :=} and the role's definition (the feature-gated ones included), and
     * eventsRule().
     */
    static List<PolicyRule> kubeSchedulerRules(String policyGo, String controllerPolicyGo) {
        Map<String, String> groups = new HashMap<>();
        Matcher g = GROUP_CONSTANT.matcher(policyGo);
        while (g.find()) {
            groups.put(g.group(1), g.group(2));
        }
        Map<String, List<String>> verbSets = new HashMap<>();
        Matcher v = VERB_SET.matcher(policyGo);
        while (v.find()) {
            verbSets.put(v.group(1), strings(v.group(2)));
        }
        int start = policyGo.indexOf("kubeSchedulerRules := ");
        int end = policyGo.indexOf("Name: \"system:kube-scheduler\"", start);
        assertThat(start).as("kubeSchedulerRules in policy.go").isPositive();
        String block = policyGo.substring(start, end);
        List<PolicyRule> rules = new ArrayList<>();
        if (block.contains("eventsRule()")) {
            int events = controllerPolicyGo.indexOf("func eventsRule()");
            rules.addAll(parse(controllerPolicyGo.substring(events, events + 300), groups, verbSets, true));
        }
        rules.addAll(parse(block, groups, verbSets, false));
        return rules;
    }

    private static List<PolicyRule> parse(
            String source, Map<String, String> groups, Map<String, List<String>> verbSets, boolean first) {
        List<PolicyRule> rules = new ArrayList<>();
        Matcher m = RULE.matcher(source);
        while (m.find()) {
            String verbs = m.group(1).strip();
            List<String> verbList =
                    verbs.endsWith("...") ? verbSets.get(verbs.substring(0, verbs.length() - 3)) : strings(verbs);
            List<String> groupList = Arrays.stream(m.group(2).split(","))
                    .map(String::strip)
                    .map(name -> {
                        assertThat(groups).as("group constant %s", name).containsKey(name);
                        return groups.get(name);
                    })
                    .toList();
            PolicyRule rule = new PolicyRule();
            rule.setVerbs(verbList);
            rule.setApiGroups(groupList);
            rule.setResources(strings(m.group(3)));
            rule.setResourceNames(m.group(5) == null ? null : strings(m.group(5)));
            rules.add(rule);
            if (first) {
                break;
            }
        }
        return rules;
    }

    private static List<String> strings(String goList) {
        List<String> values = new ArrayList<>();
        Matcher m = Pattern.compile("\"([^\"]*)\"").matcher(goList);
        while (m.find()) {
            values.add(m.group(1));
        }
        return values;
    }
}
