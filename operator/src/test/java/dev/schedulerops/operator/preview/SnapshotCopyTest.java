package dev.schedulerops.operator.preview;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;

/** Only what the scheduler reads leaves the live cluster. */
class SnapshotCopyTest {
    static final String LIVE_POD =
            """
            {"apiVersion":"v1","kind":"Pod",
             "metadata":{"name":"web-1","namespace":"team-a","uid":"u1","resourceVersion":"9",
               "labels":{"app":"web"},"annotations":{"secret-ish":"x","kubectl.kubernetes.io/last-applied-configuration":"{}"},
               "ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"web-abc","uid":"r1","controller":true,"blockOwnerDeletion":true},
                                  {"apiVersion":"v1","kind":"ConfigMap","name":"other","uid":"c1"}]},
             "spec":{"nodeName":"node-3","schedulerName":"label-priority","serviceAccountName":"web",
               "priority":100,"priorityClassName":"high","preemptionPolicy":"PreemptLowerPriority",
               "nodeSelector":{"disk":"ssd"},"tolerations":[{"key":"dedicated","operator":"Exists"}],
               "affinity":{"podAntiAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[{"topologyKey":"kubernetes.io/hostname","labelSelector":{"matchLabels":{"app":"web"}}}]}},
               "topologySpreadConstraints":[{"maxSkew":1,"topologyKey":"zone","whenUnsatisfiable":"DoNotSchedule","labelSelector":{"matchLabels":{"app":"web"}}}],
               "volumes":[{"name":"data","persistentVolumeClaim":{"claimName":"data"}},{"name":"token","projected":{"sources":[]}}],
               "schedulingGates":[{"name":"wait"}],
               "imagePullSecrets":[{"name":"registry"}],
               "initContainers":[{"name":"init","image":"busybox","command":["sh"],"restartPolicy":"Always","resources":{"requests":{"cpu":"100m"}}}],
               "containers":[{"name":"web","image":"nginx:1.27","command":["nginx"],"args":["-g"],
                 "env":[{"name":"PASSWORD","value":"hunter2"}],"envFrom":[{"secretRef":{"name":"db"}}],
                 "ports":[{"containerPort":80,"hostPort":8080,"protocol":"TCP"}],
                 "volumeMounts":[{"name":"data","mountPath":"/data"}],
                 "livenessProbe":{"httpGet":{"path":"/","port":80}},
                 "securityContext":{"runAsUser":1000},
                 "resources":{"requests":{"cpu":"500m","memory":"256Mi"},"limits":{"memory":"512Mi"},"claims":[{"name":"gpu"}]}}],
               "resourceClaims":[{"name":"gpu","resourceClaimName":"gpu"}]},
             "status":{"phase":"Running","podIP":"10.0.0.5"}}
            """;

    @Test
    void aBoundPodKeepsWhatPluginsReadAndNothingElse() {
        ObjectNode pod = SnapshotCopy.boundPod(Json.tree(LIVE_POD));
        String json = Json.write(pod);
        for (String secret : new String[] {
            "hunter2",
            "PASSWORD",
            "envFrom",
            "db",
            "nginx\"]",
            "livenessProbe",
            "volumeMounts",
            "secret-ish",
            "last-applied",
            "imagePullSecrets",
            "serviceAccountName",
            "runAsUser",
            "10.0.0.5",
            "resourceVersion",
            "claims",
            "persistentVolumeClaim",
            "schedulingGates",
            "ConfigMap"
        }) {
            assertThat(json).as(secret).doesNotContain(secret);
        }
        assertThat(SnapshotCopy.fieldNames(pod.get("metadata")))
                .containsExactly("name", "namespace", "labels", "ownerReferences");
        assertThat(pod.at("/metadata/ownerReferences")).hasSize(1);
        assertThat(pod.at("/metadata/ownerReferences/0/kind").asText()).isEqualTo("ReplicaSet");
        JsonNode spec = pod.get("spec");
        assertThat(SnapshotCopy.fieldNames(spec))
                .containsExactlyInAnyOrder(
                        "nodeSelector",
                        "affinity",
                        "tolerations",
                        "topologySpreadConstraints",
                        "priority",
                        "priorityClassName",
                        "preemptionPolicy",
                        "automountServiceAccountToken",
                        "containers",
                        "initContainers",
                        "nodeName");
        assertThat(spec.get("nodeName").asText()).isEqualTo("node-3");
        JsonNode web = spec.at("/containers/0");
        assertThat(SnapshotCopy.fieldNames(web)).containsExactly("name", "image", "ports", "resources");
        assertThat(web.at("/resources/requests/cpu").asText()).isEqualTo("500m");
        assertThat(web.at("/resources/limits/memory").asText()).isEqualTo("512Mi");
        assertThat(web.at("/ports/0/hostPort").asInt()).isEqualTo(8080);
        assertThat(spec.at("/initContainers/0/restartPolicy").asText()).isEqualTo("Always");
        assertThat(spec.at("/initContainers/0/command").isMissingNode()).isTrue();
    }

    @Test
    void aPodToPlaceSaysWhatWasNotReplayed() {
        SnapshotCopy.CopiedPod copy = SnapshotCopy.podToPlace(Json.tree(LIVE_POD));
        assertThat(copy.pod().at("/spec/nodeName").isMissingNode()).isTrue();
        assertThat(copy.omissions())
                .hasSize(3)
                .anyMatch(o -> o.contains("persistent volume claims"))
                .anyMatch(o -> o.contains("resource claims"))
                .anyMatch(o -> o.contains("scheduling gates"));
    }

    @Test
    void aNodeKeepsLabelsTaintsResourcesAndImages() {
        ObjectNode node = SnapshotCopy.node(
                Json.tree(
                        """
                {"metadata":{"name":"n1","labels":{"zone":"a"},"annotations":{"x":"y"},"uid":"u"},
                 "spec":{"taints":[{"key":"k","effect":"NoSchedule"}],"unschedulable":true,"podCIDR":"10.0.0.0/24","providerID":"p"},
                 "status":{"capacity":{"cpu":"4"},"allocatable":{"cpu":"3900m"},"addresses":[{"type":"InternalIP","address":"10.1.1.1"}],
                   "images":[{"names":["nginx:1.27"],"sizeBytes":5000}],"nodeInfo":{"kernelVersion":"6"}}}
                """));
        assertThat(Json.write(node)).doesNotContain("annotations", "podCIDR", "providerID", "10.1.1.1", "kernel");
        assertThat(node.at("/spec/taints/0/key").asText()).isEqualTo("k");
        assertThat(node.at("/spec/unschedulable").asBoolean()).isTrue();
        assertThat(node.at("/status/allocatable/cpu").asText()).isEqualTo("3900m");
        assertThat(node.at("/status/images/0/sizeBytes").asLong()).isEqualTo(5000);
    }

    @Test
    void servicesAndControllersKeepTheirSelectorsOnly() {
        ObjectNode service = SnapshotCopy.service(Json.tree(
                "{\"metadata\":{\"name\":\"web\",\"namespace\":\"a\"},\"spec\":{\"selector\":{\"app\":\"web\"},"
                        + "\"clusterIP\":\"10.0.0.1\",\"ports\":[{\"port\":80}]}}"));
        assertThat(service.at("/spec/clusterIP").asText()).isEqualTo("None");
        assertThat(service.at("/spec/selector/app").asText()).isEqualTo("web");
        assertThat(service.at("/spec/ports").isMissingNode()).isTrue();
        assertThat(SnapshotCopy.service(Json.tree("{\"metadata\":{\"name\":\"x\",\"namespace\":\"a\"},\"spec\":{}}")))
                .isNull();
        ObjectNode rs = SnapshotCopy.workloadController(
                Json.tree(
                        "{\"apiVersion\":\"apps/v1\",\"kind\":\"ReplicaSet\",\"metadata\":{\"name\":\"web-abc\",\"namespace\":\"a\"},"
                                + "\"spec\":{\"replicas\":3,\"selector\":{\"matchLabels\":{\"app\":\"web\"}},"
                                + "\"template\":{\"metadata\":{\"labels\":{\"app\":\"web\"}},\"spec\":{\"containers\":[{\"name\":\"w\",\"image\":\"nginx\",\"env\":[{\"name\":\"P\",\"value\":\"s\"}]}]}}}}"));
        assertThat(rs.at("/spec/replicas").asInt()).isZero();
        assertThat(rs.at("/spec/selector/matchLabels/app").asText()).isEqualTo("web");
        assertThat(Json.write(rs)).doesNotContain("nginx", "\"s\"");
    }
}
