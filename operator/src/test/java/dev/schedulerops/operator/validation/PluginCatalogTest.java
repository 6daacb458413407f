package dev.schedulerops.operator.validation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The catalogues are generated from the Kubernetes sources (the e2e module's PluginCatalogFilesTest checks them
 * against the sources); this checks how they are read and that the operator's Java side covers them.
 */
class PluginCatalogTest {

    private final PluginCatalog v133 = PluginCatalog.forVersion("1.33.13");

    @Test
    void everySupportedVersionHasACatalogue() {
        assertThat(SchedulerFlagCatalog.versions()).hasSizeGreaterThanOrEqualTo(8);
        for (KubernetesVersion version : SchedulerFlagCatalog.versions()) {
            PluginCatalog catalog = PluginCatalog.forVersion(version);
            assertThat(catalog.pluginNames()).as("%s", version).contains("PrioritySort", "DefaultBinder");
            assertThat(catalog.defaults()).as("%s", version).isNotEmpty();
            assertThat(catalog.pointFields()).as("%s", version).contains("filter", "multiPoint");
        }
    }

    @Test
    void parsesPatchAndVendorVersions() {
        assertThat(PluginCatalog.forVersion("1.33").version()).isEqualTo(new KubernetesVersion(1, 33));
        assertThat(PluginCatalog.forVersion("v1.32.4+k3s1").version()).isEqualTo(new KubernetesVersion(1, 32));
        assertThat(PluginCatalog.forVersion("v1.30.6-eks-1234abc").version()).isEqualTo(new KubernetesVersion(1, 30));
        assertThat(PluginCatalog.supports("1.37.1")).isTrue();
        assertThat(PluginCatalog.supports("1.28.9")).isFalse();
        assertThat(PluginCatalog.supports("latest")).isFalse();
    }

    @Test
    void rejectsVersionsWithoutACatalogue() {
        assertThatThrownBy(() -> PluginCatalog.forVersion("1.38.0"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Kubernetes 1.38 has no plugin catalogue; supported: 1.30..1.37");
        assertThatThrownBy(() -> PluginCatalog.forVersion("one.two"))
                .hasMessage("not a Kubernetes version: \"one.two\" (expected e.g. 1.33 or 1.33.13)");
    }

    @Test
    void readsEveryKindOfLine() {
        PluginCatalog catalog = PluginCatalog.parse(
                new KubernetesVersion(1, 99),
                """
                # a comment
                point filter
                point score
                point placementScore
                point multiPoint
                plugin Fit filter score placementScore
                plugin Binder
                default Fit 3
                default Binder
                removed OldLimits
                args FitArgs a b
                """);
        assertThat(catalog.pointFields()).containsExactly("filter", "score", "placementScore", "multiPoint");
        assertThat(catalog.extensionPoints("Fit")).containsExactly("filter", "score", "placementScore");
        assertThat(catalog.implementedPoints("Fit")).containsExactly(ExtensionPoint.FILTER, ExtensionPoint.SCORE);
        assertThat(catalog.accepts("Binder", ExtensionPoint.MULTI_POINT)).isTrue();
        assertThat(catalog.accepts("Binder", ExtensionPoint.FILTER)).isFalse();
        assertThat(catalog.defaults()).containsExactly(new DefaultPlugin("Fit", 3), new DefaultPlugin("Binder", null));
        assertThat(catalog.isRemoved("OldLimits")).isTrue();
        assertThat(catalog.argsKind("Fit")).contains("FitArgs");
        assertThat(catalog.argsKinds()).containsEntry("FitArgs", List.of("a", "b"));
        assertThatThrownBy(() -> PluginCatalog.parse(new KubernetesVersion(1, 99), "plugins Fit"))
                .hasMessage("not a plugin catalogue line: plugins Fit");
    }

    @Test
    void theNonCsiVolumeLimitPluginsAreRefusedFrom131AndGoneFrom132() {
        PluginCatalog v130 = PluginCatalog.forVersion("1.30");
        PluginCatalog v131 = PluginCatalog.forVersion("1.31");
        PluginCatalog v132 = PluginCatalog.forVersion("1.32");
        for (String plugin : List.of("EBSLimits", "GCEPDLimits", "AzureDiskLimits", "CinderLimits")) {
            assertThat(v130.isKnown(plugin) && !v130.isRemoved(plugin))
                    .as(plugin)
                    .isTrue();
            // 1.31 still registers them, but its validation refuses them.
            assertThat(v131.isKnown(plugin) && v131.isRemoved(plugin))
                    .as(plugin)
                    .isTrue();
            assertThat(v132.isKnown(plugin)).as(plugin).isFalse();
            assertThat(v132.removedMessage(plugin))
                    .contains("plugin \"" + plugin + "\" was removed: kube-scheduler 1.32 refuses it; use"
                            + " NodeVolumeLimits instead");
        }
        assertThat(v133.isRemoved("NodeVolumeLimits")).isFalse();
        assertThat(v133.removedMessage("NodeVolumeLimits")).isEmpty();
    }

    @Test
    void extensionPointsFollowTheVersion() {
        assertThat(PluginCatalog.forVersion("1.31").extensionPoints("DefaultPreemption"))
                .containsExactly("postFilter");
        assertThat(v133.extensionPoints("DefaultPreemption")).containsExactly("preEnqueue", "postFilter");
        assertThat(v133.extensionPoints("VolumeBinding"))
                .containsExactly("preFilter", "filter", "preScore", "score", "reserve", "preBind");
        assertThat(PluginCatalog.forVersion("1.37").extensionPoints("NodeResourcesFit"))
                .contains("placementScore");
    }

    @Test
    void defaultsFollowTheVersion() {
        List<String> v130 = names(PluginCatalog.forVersion("1.30").defaults());
        assertThat(v130).contains("EBSLimits").startsWith("SchedulingGates");
        assertThat(names(v133.defaults()))
                .startsWith("SchedulingGates", "PrioritySort")
                .doesNotContain("DynamicResources");
        List<String> v134 = names(PluginCatalog.forVersion("1.34.0").defaults());
        assertThat(v134.indexOf("DynamicResources")).isEqualTo(v134.indexOf("DefaultPreemption") - 1);
        assertThat(PluginCatalog.forVersion("1.35").defaults()).contains(new DefaultPlugin("DynamicResources", 2));
        assertThat(v133.defaults()).contains(new DefaultPlugin("TaintToleration", 3));
    }

    @Test
    void argsKindsFollowTheVersion() {
        assertThat(v133.argsKind("NodeResourcesFit")).contains("NodeResourcesFitArgs");
        assertThat(v133.argsKind("NodeName")).isEmpty();
        assertThat(v133.hasArgs("DynamicResources")).isFalse();
        assertThat(PluginCatalog.forVersion("1.34").argsKinds())
                .containsEntry("DynamicResourcesArgs", List.of("filterTimeout"));
        assertThat(PluginCatalog.forVersion("1.37").argsKinds().get("DynamicResourcesArgs"))
                .containsExactly("filterTimeout", "bindingTimeout");
    }

    /** What a catalogue lists, the Java side must be able to decode and check: a new kind or field fails here. */
    @Test
    void everyArgsKindAndFieldOfEveryVersionHasAJavaShape() {
        Set<String> used = new HashSet<>();
        for (KubernetesVersion version : SchedulerFlagCatalog.versions()) {
            PluginCatalog catalog = PluginCatalog.forVersion(version);
            catalog.argsKinds().forEach((kind, fields) -> {
                ArgsShape.ObjectOf shape = ArgsKinds.shapeIn(catalog, kind);
                assertThat(shape.fields().keySet())
                        .as("the fields of %s in Kubernetes %s (add them to ArgsKinds)", kind, version)
                        .containsAll(fields);
                fields.forEach(field -> used.add(kind + "." + field));
            });
        }
        for (ArgsKinds.PluginArgs args : ArgsKinds.ALL) {
            args.shape().fields().keySet().stream()
                    .filter(field -> !field.equals("apiVersion") && !field.equals("kind"))
                    .forEach(field -> assertThat(used)
                            .as("ArgsKinds field no supported version has")
                            .contains(args.kind() + "." + field));
        }
    }

    private static List<String> names(List<DefaultPlugin> defaults) {
        return defaults.stream().map(DefaultPlugin::name).toList();
    }
}
