package dev.schedulerops.operator.validation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class PluginCatalogTest {

    private final PluginCatalog v133 = PluginCatalog.forVersion("1.33.13");

    @Test
    void parsesPatchAndPrefixedVersions() {
        assertThat(PluginCatalog.forVersion("1.33").version()).isEqualTo(new KubernetesVersion(1, 33));
        assertThat(PluginCatalog.forVersion("v1.32.4+k3s1").version()).isEqualTo(new KubernetesVersion(1, 32));
        assertThat(PluginCatalog.supports("1.34.1")).isTrue();
        assertThat(PluginCatalog.supports("1.30.9")).isFalse();
        assertThat(PluginCatalog.supports("latest")).isFalse();
    }

    @Test
    void rejectsVersionsOutsideTheSupportedRange() {
        assertThatThrownBy(() -> PluginCatalog.forVersion("1.35.0"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Kubernetes 1.35 is not supported by the plugin catalog; supported: 1.31 to 1.34");
        assertThatThrownBy(() -> PluginCatalog.forVersion("one.two"))
                .hasMessage("not a Kubernetes version: \"one.two\" (expected e.g. 1.33 or 1.33.13)");
    }

    @Test
    void knowsTheInTreePluginsOf133AndTheirExtensionPoints() {
        assertThat(v133.pluginNames()).hasSize(19).contains("NodeResourcesFit", "DynamicResources");
        assertThat(v133.isKnown("EBSLimits")).isFalse();
        assertThat(v133.extensionPoints("NodeResourcesFit"))
                .containsExactly("preFilter", "filter", "preScore", "score");
        assertThat(v133.extensionPoints("VolumeBinding"))
                .containsExactly("preFilter", "filter", "reserve", "preScore", "score", "preBind");
        assertThat(v133.extensionPoints("DefaultBinder")).containsExactly("bind");
        assertThat(v133.extensionPoints("Foo")).isEmpty();
        assertThat(v133.accepts("ImageLocality", ExtensionPoint.MULTI_POINT)).isTrue();
        assertThat(v133.accepts("ImageLocality", ExtensionPoint.FILTER)).isFalse();
    }

    @Test
    void nonCsiVolumeLimitPluginsExistIn131AndAreRemovedFrom132() {
        PluginCatalog v131 = PluginCatalog.forVersion("1.31");
        assertThat(v131.isKnown("EBSLimits")).isTrue();
        assertThat(v131.extensionPoints("GCEPDLimits")).containsExactly("preFilter", "filter");
        assertThat(v131.removedIn("EBSLimits")).isEmpty();

        PluginCatalog v132 = PluginCatalog.forVersion("1.32");
        for (String plugin : List.of("EBSLimits", "GCEPDLimits", "AzureDiskLimits", "CinderLimits")) {
            assertThat(v132.isKnown(plugin)).as(plugin).isFalse();
            assertThat(v132.removedIn(plugin)).as(plugin).contains("1.32");
            assertThat(v133.replacementFor(plugin)).as(plugin).contains("NodeVolumeLimits");
        }
        assertThat(v133.removedIn("NodeVolumeLimits")).isEmpty();
    }

    @Test
    void extensionPointsFollowTheVersion() {
        assertThat(PluginCatalog.forVersion("1.31").extensionPoints("DefaultPreemption"))
                .containsExactly("postFilter");
        assertThat(v133.extensionPoints("DefaultPreemption")).containsExactly("postFilter", "preEnqueue");
        assertThat(PluginCatalog.forVersion("1.31").extensionPoints("DynamicResources"))
                .contains("preScore", "postBind");
        assertThat(v133.extensionPoints("DynamicResources"))
                .containsExactly("preFilter", "filter", "postFilter", "reserve", "preBind", "preEnqueue");
    }

    @Test
    void defaultPluginsOf133WithWeights() {
        assertThat(v133.defaults())
                .containsExactly(
                        new DefaultPlugin("SchedulingGates", null),
                        new DefaultPlugin("PrioritySort", null),
                        new DefaultPlugin("NodeUnschedulable", null),
                        new DefaultPlugin("NodeName", null),
                        new DefaultPlugin("TaintToleration", 3),
                        new DefaultPlugin("NodeAffinity", 2),
                        new DefaultPlugin("NodePorts", null),
                        new DefaultPlugin("NodeResourcesFit", 1),
                        new DefaultPlugin("VolumeRestrictions", null),
                        new DefaultPlugin("NodeVolumeLimits", null),
                        new DefaultPlugin("VolumeBinding", null),
                        new DefaultPlugin("VolumeZone", null),
                        new DefaultPlugin("PodTopologySpread", 2),
                        new DefaultPlugin("InterPodAffinity", 2),
                        new DefaultPlugin("DefaultPreemption", null),
                        new DefaultPlugin("NodeResourcesBalancedAllocation", 1),
                        new DefaultPlugin("ImageLocality", 1),
                        new DefaultPlugin("DefaultBinder", null));
    }

    @Test
    void dynamicResourcesIsADefaultAndHasArgsFrom134() {
        PluginCatalog v134 = PluginCatalog.forVersion("1.34.0");
        List<String> names = v134.defaults().stream().map(DefaultPlugin::name).toList();
        assertThat(names.indexOf("DynamicResources")).isEqualTo(names.indexOf("DefaultPreemption") - 1);
        assertThat(v134.argsKind("DynamicResources")).contains("DynamicResourcesArgs");
        assertThat(v133.defaults()).extracting(DefaultPlugin::name).doesNotContain("DynamicResources");
        assertThat(v133.hasArgs("DynamicResources")).isFalse();
    }

    @Test
    void argsKinds() {
        assertThat(v133.argsKind("NodeResourcesFit")).contains("NodeResourcesFitArgs");
        assertThat(v133.argsKind("PodTopologySpread")).contains("PodTopologySpreadArgs");
        assertThat(v133.hasArgs("NodeName")).isFalse();
        assertThat(v133.argsKind("NodeName")).isEmpty();
    }
}
