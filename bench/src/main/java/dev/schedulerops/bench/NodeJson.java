package dev.schedulerops.bench;

import dev.schedulerops.extender.nodecache.StaticNodeCache;
import java.nio.charset.StandardCharsets;
import java.util.Random;

/**
 * Builds extender requests as kube-scheduler sends them, with Node objects shaped like what a kubelet reports:
 * labels, annotations, capacity, allocatable, five conditions, addresses, daemon endpoints, nodeInfo and 50 images
 * (about 12.3 KB per node: 12,259 bytes on average at 1000 and 5000 nodes). Deterministic for a given node count.
 */
public final class NodeJson {
    public static final String LABEL_KEY = "priority.lixueduan.com";
    private static final String POD =
            "{\"metadata\":{\"name\":\"web-7d4b9c8f6d-x2x9q\",\"generateName\":\"web-7d4b9c8f6d-\","
                    + "\"namespace\":\"demo\",\"uid\":\"6f1c2a0e-2f9d-4a57-9d0c-1b1a2f3c4d5e\",\"resourceVersion\":\"48213\","
                    + "\"creationTimestamp\":\"2026-11-21T10:00:00Z\",\"labels\":{\"app\":\"web\",\"pod-template-hash\":"
                    + "\"7d4b9c8f6d\"},\"ownerReferences\":[{\"apiVersion\":\"apps/v1\",\"kind\":\"ReplicaSet\",\"name\":"
                    + "\"web-7d4b9c8f6d\",\"uid\":\"0a1b2c3d-4e5f-6789-abcd-ef0123456789\",\"controller\":true,"
                    + "\"blockOwnerDeletion\":true}]},\"spec\":{\"containers\":[{\"name\":\"web\",\"image\":"
                    + "\"registry.example/web:1.4.2\",\"ports\":[{\"containerPort\":8080,\"protocol\":\"TCP\"}],"
                    + "\"resources\":{\"requests\":{\"cpu\":\"250m\",\"memory\":\"256Mi\"}},\"terminationMessagePath\":"
                    + "\"/dev/termination-log\",\"terminationMessagePolicy\":\"File\",\"imagePullPolicy\":\"IfNotPresent\"}],"
                    + "\"restartPolicy\":\"Always\",\"terminationGracePeriodSeconds\":30,\"dnsPolicy\":\"ClusterFirst\","
                    + "\"serviceAccountName\":\"default\",\"schedulerName\":\"label-priority\",\"priority\":0,"
                    + "\"enableServiceLinks\":true,\"preemptionPolicy\":\"PreemptLowerPriority\"},\"status\":{\"phase\":"
                    + "\"Pending\",\"qosClass\":\"Burstable\"}}";

    private NodeJson() {}

    /** Writes a request body to a file, for load tools other than ours: {@code NodeJson full|names NODES FILE}. */
    public static void main(String[] args) throws java.io.IOException {
        int count = Integer.parseInt(args[1]);
        byte[] body = args[0].equals("full") ? fullNodesRequest(count) : namesOnlyRequest(count);
        java.nio.file.Files.write(java.nio.file.Path.of(args[2]), body);
    }

    /** The name of node {@code index}: {@code node-00000}, {@code node-00001}, ... */
    public static String name(int index) {
        return String.format("node-%05d", index);
    }

    /**
     * The label value of node {@code index}, or null when it lacks the label: every fifth node lacks it, the others
     * carry a value in 0..999.
     */
    public static String labelValue(int index) {
        return index % 5 == 4 ? null : Integer.toString((index * 7919) % 1000);
    }

    /** A node cache holding the same nodes and labels as the generated requests. */
    public static StaticNodeCache staticCache(int count) {
        StaticNodeCache cache = new StaticNodeCache();
        for (int i = 0; i < count; i++) {
            cache.put(name(i), labelValue(i));
        }
        return cache;
    }

    /** A full-node ExtenderArgs body ({@code nodeCacheCapable: false}). */
    public static byte[] fullNodesRequest(int count) {
        Random random = new Random(count);
        StringBuilder json = new StringBuilder(count * 12_500 + 4096);
        json.append("{\"Pod\":").append(POD).append(",\"Nodes\":{\"metadata\":{},\"items\":[");
        for (int i = 0; i < count; i++) {
            if (i > 0) {
                json.append(',');
            }
            appendNode(json, i, random);
        }
        json.append("]},\"NodeNames\":null}");
        return json.toString().getBytes(StandardCharsets.UTF_8);
    }

    /** A names-only ExtenderArgs body ({@code nodeCacheCapable: true}). */
    public static byte[] namesOnlyRequest(int count) {
        StringBuilder json = new StringBuilder(count * 14 + 4096);
        json.append("{\"Pod\":").append(POD).append(",\"Nodes\":null,\"NodeNames\":[");
        for (int i = 0; i < count; i++) {
            if (i > 0) {
                json.append(',');
            }
            json.append('"').append(name(i)).append('"');
        }
        json.append("]}");
        return json.toString().getBytes(StandardCharsets.UTF_8);
    }

    private static void appendNode(StringBuilder json, int index, Random random) {
        String name = name(index);
        String zone = "zone-" + (char) ('a' + index % 3);
        String ip = "10." + (index / 65536 % 256) + "." + (index / 256 % 256) + "." + (index % 256);
        json.append("{\"metadata\":{\"name\":\"")
                .append(name)
                .append("\",\"uid\":\"")
                .append(uuid(random))
                .append("\",\"resourceVersion\":\"")
                .append(100000 + random.nextInt(900000))
                .append("\",\"creationTimestamp\":\"2026-10-01T08:00:00Z\",\"labels\":{")
                .append("\"beta.kubernetes.io/arch\":\"amd64\",\"beta.kubernetes.io/os\":\"linux\",")
                .append("\"kubernetes.io/arch\":\"amd64\",\"kubernetes.io/hostname\":\"")
                .append(name)
                .append("\",")
                .append("\"kubernetes.io/os\":\"linux\",\"node.kubernetes.io/instance-type\":\"m6i.2xlarge\",")
                .append("\"topology.kubernetes.io/region\":\"eu-west-1\",\"topology.kubernetes.io/zone\":\"")
                .append(zone)
                .append('"');
        String value = labelValue(index);
        if (value != null) {
            json.append(",\"").append(LABEL_KEY).append("\":\"").append(value).append('"');
        }
        json.append("},\"annotations\":{\"node.alpha.kubernetes.io/ttl\":\"0\",")
                .append("\"volumes.kubernetes.io/controller-managed-attach-detach\":\"true\",")
                .append("\"csi.volume.kubernetes.io/nodeid\":\"{\\\"ebs.csi.aws.com\\\":\\\"i-0")
                .append(Long.toHexString(random.nextLong() & 0xffffffffffL))
                .append("\\\"}\"}},")
                .append("\"spec\":{\"podCIDR\":\"10.244.")
                .append(index % 256)
                .append(".0/24\",\"podCIDRs\":[\"10.244.")
                .append(index % 256)
                .append(".0/24\"],\"providerID\":\"aws:///eu-west-1a/i-0")
                .append(Long.toHexString(random.nextLong() & 0xffffffffffL))
                .append("\"},")
                .append("\"status\":{\"capacity\":{\"cpu\":\"8\",\"ephemeral-storage\":\"104845292Ki\",")
                .append("\"hugepages-1Gi\":\"0\",\"hugepages-2Mi\":\"0\",\"memory\":\"32386544Ki\",\"pods\":\"110\"},")
                .append("\"allocatable\":{\"cpu\":\"7910m\",\"ephemeral-storage\":\"95551679124\",")
                .append("\"hugepages-1Gi\":\"0\",\"hugepages-2Mi\":\"0\",\"memory\":\"31369712Ki\",\"pods\":\"110\"},")
                .append("\"conditions\":[");
        String[][] conditions = {
            {"MemoryPressure", "False", "KubeletHasSufficientMemory", "kubelet has sufficient memory available"},
            {"DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"},
            {"PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available"},
            {"Ready", "True", "KubeletReady", "kubelet is posting ready status"},
            {"NetworkUnavailable", "False", "RouteCreated", "RouteController created a route"},
        };
        for (int c = 0; c < conditions.length; c++) {
            if (c > 0) {
                json.append(',');
            }
            json.append("{\"type\":\"")
                    .append(conditions[c][0])
                    .append("\",\"status\":\"")
                    .append(conditions[c][1])
                    .append("\",\"lastHeartbeatTime\":\"2026-11-21T09:5")
                    .append(random.nextInt(10))
                    .append(":00Z\",\"lastTransitionTime\":\"2026-10-01T08:01:00Z\",\"reason\":\"")
                    .append(conditions[c][2])
                    .append("\",\"message\":\"")
                    .append(conditions[c][3])
                    .append("\"}");
        }
        json.append("],\"addresses\":[{\"type\":\"InternalIP\",\"address\":\"")
                .append(ip)
                .append("\"},{\"type\":\"Hostname\",\"address\":\"")
                .append(name)
                .append("\"},{\"type\":\"InternalDNS\",\"address\":\"ip-")
                .append(ip.replace('.', '-'))
                .append(".eu-west-1.compute.internal\"}],\"daemonEndpoints\":{\"kubeletEndpoint\":{\"Port\":10250}},")
                .append("\"nodeInfo\":{\"machineID\":\"")
                .append(hex(random, 32))
                .append("\",\"systemUUID\":\"")
                .append(uuid(random))
                .append("\",\"bootID\":\"")
                .append(uuid(random))
                .append("\",\"kernelVersion\":\"6.1.112-124.190.amzn2023.x86_64\",")
                .append("\"osImage\":\"Amazon Linux 2023.6.20241031\",")
                .append("\"containerRuntimeVersion\":\"containerd://1.7.23\",\"kubeletVersion\":\"v1.33.13\",")
                .append("\"kubeProxyVersion\":\"v1.33.13\",\"operatingSystem\":\"linux\",\"architecture\":\"amd64\"},")
                .append("\"images\":[");
        for (int img = 0; img < 50; img++) {
            if (img > 0) {
                json.append(',');
            }
            String repo = "registry.example/team-" + (img % 7) + "/service-" + img;
            json.append("{\"names\":[\"")
                    .append(repo)
                    .append("@sha256:")
                    .append(hex(random, 64))
                    .append("\",\"")
                    .append(repo)
                    .append(":v")
                    .append(1 + random.nextInt(20))
                    .append('.')
                    .append(random.nextInt(30))
                    .append("\"],\"sizeBytes\":")
                    .append(1_000_000 + random.nextInt(500_000_000))
                    .append('}');
        }
        json.append("],\"runtimeHandlers\":[{\"name\":\"runc\",\"features\":{\"recursiveReadOnlyMounts\":true,")
                .append("\"userNamespaces\":true}},{\"name\":\"\",\"features\":{\"recursiveReadOnlyMounts\":true,")
                .append("\"userNamespaces\":true}}],\"features\":{\"supplementalGroupsPolicy\":true}}}");
    }

    private static String uuid(Random random) {
        String h = hex(random, 32);
        return h.substring(0, 8) + "-" + h.substring(8, 12) + "-" + h.substring(12, 16) + "-" + h.substring(16, 20)
                + "-" + h.substring(20);
    }

    private static String hex(Random random, int digits) {
        StringBuilder out = new StringBuilder(digits);
        for (int i = 0; i < digits; i++) {
            out.append(Character.forDigit(random.nextInt(16), 16));
        }
        return out.toString();
    }
}
