package dev.schedulerops.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.schedulerops.e2e.support.Cluster;
import dev.schedulerops.e2e.support.ClusterExtension;
import dev.schedulerops.e2e.support.Crds;
import dev.schedulerops.e2e.support.E2eSettings;
import dev.schedulerops.e2e.support.ExpectComment;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The generated CRD against the real API server: it installs, takes every sample, and rejects bad profiles. */
@ExtendWith(ClusterExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CrdAdmissionTest {
    private static final String CRD_NAME = Crds.NAME;
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
    private static final ResourceDefinitionContext PROFILES = new ResourceDefinitionContext.Builder()
            .withGroup("schedulerops.dev")
            .withVersion("v1beta1")
            .withKind("SchedulerProfile")
            .withPlural("schedulerprofiles")
            .withNamespaced(false)
            .build();

    private Cluster cluster;

    @BeforeAll
    void installCrd(Cluster cluster) {
        this.cluster = cluster;
        Crds.install(cluster.client());
    }

    @Test
    void crdIsEstablishedWithItsNames() {
        CustomResourceDefinition crd = cluster.client()
                .apiextensions()
                .v1()
                .customResourceDefinitions()
                .withName(CRD_NAME)
                .get();

        assertThat(Crds.isEstablished(crd)).isTrue();
        // Cluster-scoped, like StorageClass and PriorityClass: spec.schedulerName is a cluster-wide name.
        assertThat(crd.getSpec().getScope()).isEqualTo("Cluster");
        assertThat(crd.getSpec().getVersions()).singleElement().satisfies(v -> assertThat(v.getName())
                .isEqualTo("v1beta1"));
        assertThat(crd.getStatus().getAcceptedNames().getKind()).isEqualTo("SchedulerProfile");
        assertThat(crd.getStatus().getAcceptedNames().getShortNames()).isNotEmpty();
        assertThat(crd.getStatus().getAcceptedNames().getCategories()).isNotEmpty();
    }

    static Stream<Arguments> samples() throws IOException {
        List<Arguments> documents = new ArrayList<>();
        try (Stream<Path> files = Files.list(E2eSettings.repoRoot().resolve("samples"))) {
            for (Path file :
                    files.filter(f -> f.toString().endsWith(".yaml")).sorted().toList()) {
                for (JsonNode document : documents(Files.readString(file))) {
                    documents.add(Arguments.of(file.getFileName().toString(), document));
                }
            }
        }
        return documents.stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("samples")
    void everySampleIsAdmitted(String file, JsonNode sample) {
        GenericKubernetesResource created = createDryRun(sample);

        assertThat(created.getMetadata().getNamespace()).isNull();
        assertThat(created.getMetadata().getName())
                .isEqualTo(sample.path("metadata").path("name").asText());
        // Defaults from the schema come back, so the object went through the CRD's structural schema.
        assertThat(spec(created)).containsKey("weight");
        JsonNode labelKey = sample.path("spec").path("labelKey");
        assertThat(spec(created).get("labelKey"))
                .as("labelKey (absent in a plugins-only sample)")
                .isEqualTo(labelKey.isMissingNode() ? null : labelKey.asText());
    }

    /**
     * {@code kubectl explain} shows each field's description from the CRD: for the fields platform teams set, the real
     * API server's published schema says what the Java API class says (first sentence, whitespace normalised).
     */
    @ParameterizedTest(name = "{0}")
    @org.junit.jupiter.params.provider.ValueSource(
            strings = {
                "labelKey",
                "extenders",
                "extenders.urlPrefix",
                "extenders.tlsConfig.caData",
                "extender.jvm.maxRAMPercentage",
                "extender.jvm.options",
                "extender.tolerations",
                "scheduler.featureGates",
                "scheduler.extraArgs",
                "scheduler.parallelism",
                "scheduler.podMaxBackoffSeconds",
                "scheduler.priorityClassName",
                "scheduler.imagePullSecrets"
            })
    void kubectlExplainShowsTheFieldsDescription(String field) throws IOException {
        JsonNode schema = crdSchema().path("properties").path("spec");
        for (String part : field.split("\\.")) {
            schema = schema.path("properties").path(part);
            if (schema.path("type").asText().equals("array")) {
                schema = schema.path("items").has("properties") ? descend(schema) : schema;
            }
        }
        String description = schema.path("description").asText();
        assertThat(description).as("the CRD's description of %s", field).isNotBlank();
        String firstSentence = description.split("(?<=\\.)\\s")[0].replaceAll("\\s+", " ");
        dev.schedulerops.e2e.support.Await.until(
                java.time.Duration.ofSeconds(60),
                "kubectl explain schedulerprofiles.spec." + field + " shows its description",
                () -> cluster.kubectl("explain", "schedulerprofiles.spec." + field)
                        .stdout()
                        .replaceAll("\\s+", " ")
                        .contains(firstSentence));
    }

    /** An array's item schema keeps the array's description; descend into the items for the next part. */
    private static JsonNode descend(JsonNode array) {
        com.fasterxml.jackson.databind.node.ObjectNode items =
                ((com.fasterxml.jackson.databind.node.ObjectNode) array.path("items")).deepCopy();
        items.set("description", array.path("description"));
        return items;
    }

    private static JsonNode crdSchema() throws IOException {
        JsonNode crd = new ObjectMapper(new YAMLFactory()).readTree(Crds.file().toFile());
        return crd.path("spec").path("versions").path(0).path("schema").path("openAPIV3Schema");
    }

    static List<ExpectComment> inadmissibleProfiles() {
        return ExpectComment.allIn("inadmissible-profiles");
    }

    /**
     * SchedulerConfigAcceptanceTest's catalogue, read here rather than through that class: its initialisation needs the
     * kube-scheduler of every version, which ./test may still be building (support/BackgroundBuild).
     */
    static List<ExpectComment> invalidProfiles() {
        return ExpectComment.allIn("invalid-profiles");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("inadmissibleProfiles")
    void badProfileIsRejectedAtAdmissionWithItsMessage(ExpectComment testCase) throws IOException {
        JsonNode profile = documents(testCase.yaml()).get(0);

        KubernetesClientException rejection =
                catchThrowableOfType(KubernetesClientException.class, () -> createDryRun(profile));

        assertThat(rejection).as("admission of %s", testCase.name()).isNotNull();
        assertThat(rejection.getCode()).isEqualTo(422);
        assertThat(rejection.getStatus().getMessage()).contains(testCase.expectedMessage());
    }

    /** The validator-level catalogue only makes sense if the API server admits those profiles. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("invalidProfiles")
    void profilesLeftToTheOperatorsValidatorPassTheSchema(ExpectComment testCase) throws IOException {
        JsonNode profile = documents(testCase.yaml()).get(0);

        GenericKubernetesResource created = createDryRun(profile);

        assertThat(created.getMetadata().getName())
                .isEqualTo(profile.path("metadata").path("name").asText());
    }

    private GenericKubernetesResource createDryRun(JsonNode document) {
        GenericKubernetesResource resource =
                cluster.client().getKubernetesSerialization().convertValue(document, GenericKubernetesResource.class);
        resource.getMetadata().setNamespace(null); // cluster-scoped
        return cluster.client()
                .genericKubernetesResources(PROFILES)
                .resource(resource)
                .dryRun()
                .create();
    }

    @SuppressWarnings("unchecked")
    private static java.util.Map<String, Object> spec(GenericKubernetesResource resource) {
        return (java.util.Map<String, Object>)
                resource.getAdditionalProperties().get("spec");
    }

    private static List<JsonNode> documents(String yaml) throws IOException {
        try (MappingIterator<JsonNode> it = YAML.readerFor(JsonNode.class).readValues(yaml)) {
            return it.readAll().stream().filter(d -> d != null && !d.isEmpty()).toList();
        }
    }
}
