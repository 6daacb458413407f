package dev.schedulerops.operator.model;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Set;
import org.junit.jupiter.api.Test;

class ImagePolicyTest {
    private static final String DIGEST = "sha256:" + "0123456789abcdef".repeat(4);
    private final ImagePolicy policy =
            new ImagePolicy(Set.of("registry.k8s.io/kube-scheduler", "registry.example.com:5000/platform/"));

    @Test
    void anExactRepositoryAllowsItsTagsAndDigestsOnly() {
        assertThat(policy.refusal("f", "registry.k8s.io/kube-scheduler:v1.33.1"))
                .isEmpty();
        assertThat(policy.refusal("f", "registry.k8s.io/kube-scheduler@" + DIGEST))
                .isEmpty();
        assertThat(policy.refusal("f", "registry.k8s.io/kube-scheduler:v1.33.1@" + DIGEST))
                .isEmpty();
        assertThat(policy.refusal("f", "registry.k8s.io/kube-scheduler")).isEmpty();
        // A look-alike repository is another repository.
        assertThat(policy.refusal("f", "registry.k8s.io/kube-scheduler-evil:v1"))
                .isPresent();
        assertThat(policy.refusal("f", "registry.k8s.io/kube-scheduler/evil:v1"))
                .isPresent();
        assertThat(policy.refusal("f", "evil.example.com/registry.k8s.io/kube-scheduler:v1"))
                .isPresent();
    }

    @Test
    void aPrefixEndingInASlashAllowsEveryRepositoryUnderIt() {
        assertThat(policy.refusal("f", "registry.example.com:5000/platform/scheduler:1"))
                .isEmpty();
        assertThat(policy.refusal("f", "registry.example.com:5000/platform/team/extender@" + DIGEST))
                .isEmpty();
        assertThat(policy.refusal("f", "registry.example.com:5000/platformx/scheduler:1"))
                .isPresent();
        assertThat(policy.refusal("f", "registry.example.com/platform/scheduler:1"))
                .isPresent();
    }

    @Test
    void theRefusalNamesTheFieldTheImageWhatIsAllowedAndTheSetting() {
        assertThat(policy.refusal("spec.scheduler.image", "docker.io/attacker/sched:1"))
                .hasValueSatisfying(m -> assertThat(m)
                        .startsWith("spec.scheduler.image: Forbidden: image \"docker.io/attacker/sched:1\"")
                        .contains("registry.example.com:5000/platform/, registry.k8s.io/kube-scheduler")
                        .contains("SCHEDULEROPS_ALLOWED_IMAGE_REPOSITORIES")
                        .contains("pinned by digest"));
        assertThat(policy.refusal("f", "Not An Image"))
                .hasValueSatisfying(m -> assertThat(m).contains("is not an image reference"));
    }

    @Test
    void theDefaultAllowsTheOperatorsOwnRepositories() {
        ImagePolicy defaults = ImagePolicy.defaults(
                "localhost:5005/schedulerops/schedulerops-extender:0.1.0", "registry.k8s.io/kube-scheduler");
        assertThat(defaults.allowedRepositories())
                .containsExactlyInAnyOrder(
                        "localhost:5005/schedulerops/schedulerops-extender", "registry.k8s.io/kube-scheduler");
        assertThat(ImagePolicy.repositoryOf("localhost:5005/a/b:1")).contains("localhost:5005/a/b");
        assertThat(ImagePolicy.pinnedByDigest("a/b@" + DIGEST)).isTrue();
        assertThat(ImagePolicy.pinnedByDigest("a/b:1")).isFalse();
    }
}
