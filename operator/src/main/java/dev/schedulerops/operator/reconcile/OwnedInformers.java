package dev.schedulerops.operator.reconcile;

import dev.schedulerops.operator.api.SchedulerProfile;
import dev.schedulerops.operator.model.ApiServerEndpoint;
import dev.schedulerops.operator.model.Labels;
import dev.schedulerops.operator.model.Names;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointPort;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.javaoperatorsdk.operator.api.config.informer.FieldSelector;
import io.javaoperatorsdk.operator.api.config.informer.InformerEventSourceConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Informers on every {@link OwnedKind} (selected by the managed-by label), on the pods of the profiles' Deployments
 * (same label: their status says why a Deployment is not available), on Nodes and on the API server's EndpointSlice. Namespaced kinds are watched in the
 * workload namespace only (and kube-system for the kinds a profile puts there): no team can create objects there, so
 * nothing a team labels is ever cached, and the operator needs no cluster-wide access to namespaced kinds. Any change
 * to an owned object, including a hand edit or deletion, reconciles the profile named by the object's profile label;
 * every object carries it, cluster-scoped ones included, so one mapper serves all types. The caches also answer "did
 * this exist before?" without API calls.
 */
public final class OwnedInformers {

    static final String MANAGED_SELECTOR = Labels.MANAGED_BY + "=" + Labels.MANAGED_BY_VALUE;

    /**
     * How many objects one list request of an informer returns; the rest come in further pages. Without a limit the
     * API server answers a list in one response, which the client holds whole, as bytes and as objects, before the
     * informer stores the first item: that is the operator's memory peak at start-up, and on a large cluster (the
     * Node informer: thousands of nodes, each with its image list) far more. Every informer that may list many objects
     * uses it. The two that select by field list without it: their answer is small (one EndpointSlice; the pods no
     * node took), and a list with a limit is a consistent read, which API servers before 1.34 serve from etcd, reading
     * every pod of the cluster to find the unscheduled ones, where a list without one comes from the watch cache.
     */
    public static final long LIST_PAGE_SIZE = 100;

    /**
     * By type, then by namespace ({@link #ALL_NAMESPACES} for a cluster-scoped kind): one informer, and so one cache,
     * for each namespace. JOSDK hands a configuration's ItemStore to the informer of every namespace it lists, and
     * fabric8's informer drops from its store whatever its own list did not return: with one store for two namespaces,
     * the second initial list dropped the first namespace's objects, and the operator re-applied them at every
     * reconcile (OperatorRestartTest).
     */
    private final Map<Class<?>, Map<String, InformerEventSource<? extends HasMetadata, SchedulerProfile>>> owned =
            new LinkedHashMap<>();

    private static final String ALL_NAMESPACES = "";
    private final InformerEventSource<Node, SchedulerProfile> nodes;
    private final InformerEventSource<Pod, SchedulerProfile> pods;
    private final InformerEventSource<EndpointSlice, SchedulerProfile> apiServer;
    /** The node count at the last node event, for {@link #nodeCountChanged}. */
    private final AtomicInteger lastNodeCount = new AtomicInteger(-1);

    private OwnedInformers(EventSourceContext<SchedulerProfile> context, String workloadNamespace) {
        for (OwnedKind kind : OwnedKind.values()) {
            Map<String, InformerEventSource<? extends HasMetadata, SchedulerProfile>> byNamespace =
                    new LinkedHashMap<>();
            Optional<Set<String>> namespaces = informerNamespaces(kind, workloadNamespace);
            String name = kind.type().getSimpleName().toLowerCase(Locale.ROOT);
            if (namespaces.isEmpty()) {
                byNamespace.put(ALL_NAMESPACES, ownedInformer(kind, name, Optional.empty(), context));
            } else {
                for (String namespace : new java.util.TreeSet<>(namespaces.get())) {
                    // Informers of one controller need names of their own: "rolebinding-kube-system".
                    String unique = namespaces.get().size() > 1 ? name + "-" + namespace : name;
                    byNamespace.put(namespace, ownedInformer(kind, unique, Optional.of(namespace), context));
                }
            }
            owned.put(kind.type(), byNamespace);
        }
        // Only label changes, and nodes joining or leaving, concern profiles; NodeEvents says which ones.
        InformerEventSourceConfiguration<Node> nodeConfig = InformerEventSourceConfiguration.from(
                        Node.class, SchedulerProfile.class)
                .withName("nodes")
                .withItemStore(new LeanItemStore<>())
                .withInformerListLimit(LIST_PAGE_SIZE)
                .withWatchAllNamespaces()
                .withOnUpdateFilter((newNode, oldNode) -> !Objects.equals(
                        newNode.getMetadata().getLabels(), oldNode.getMetadata().getLabels()))
                .withSecondaryToPrimaryMapper(node ->
                        NodeEvents.concerned(context.getPrimaryCache().list(), this::nodesLabelled, nodeCountChanged()))
                .build();
        nodes = new InformerEventSource<>(nodeConfig, context);
        pods = podInformer(workloadNamespace, context);
        apiServer = apiServerInformer(context);
    }

    /**
     * The kubernetes Service's EndpointSlice (default/kubernetes, by name: the operator may read no other): where pods
     * reach the API server, which the extenders' egress policy admits. A change reconciles every profile.
     */
    private static InformerEventSource<EndpointSlice, SchedulerProfile> apiServerInformer(
            EventSourceContext<SchedulerProfile> context) {
        return new InformerEventSource<>(
                InformerEventSourceConfiguration.from(EndpointSlice.class, SchedulerProfile.class)
                        .withName("api-server")
                        .withNamespaces(Set.of(Names.API_SERVER_SERVICE_NAMESPACE))
                        .withFieldSelector(
                                new FieldSelector(new FieldSelector.Field("metadata.name", Names.API_SERVER_SERVICE)))
                        .withSecondaryToPrimaryMapper(slice -> context.getPrimaryCache()
                                .list()
                                .map(ResourceID::fromResource)
                                .collect(java.util.stream.Collectors.toSet()))
                        .build(),
                context);
    }

    /**
     * The profiles' own pods, for {@link PodTrouble}: read, never written (pods belong to their ReplicaSets). Only a
     * status change reconciles the profile: that is where a pull failure, a crash or an unschedulable pod shows.
     */
    private static InformerEventSource<Pod, SchedulerProfile> podInformer(
            String workloadNamespace, EventSourceContext<SchedulerProfile> context) {
        InformerEventSourceConfiguration.Builder<Pod> builder = InformerEventSourceConfiguration.from(
                        Pod.class, SchedulerProfile.class)
                .withName("pods")
                .withItemStore(new LeanItemStore<>())
                .withInformerListLimit(LIST_PAGE_SIZE)
                .withLabelSelector(MANAGED_SELECTOR)
                .withOnUpdateFilter((newPod, oldPod) -> !Objects.equals(newPod.getStatus(), oldPod.getStatus()))
                .withSecondaryToPrimaryMapper(OwnedInformers::profileOf);
        return new InformerEventSource<>(
                in(builder, Optional.of(Set.of(workloadNamespace))).build(), context);
    }

    /** The builder set to watch {@code namespaces}, or all namespaces when empty. */
    private static <R extends HasMetadata> InformerEventSourceConfiguration.Builder<R> in(
            InformerEventSourceConfiguration.Builder<R> builder, Optional<Set<String>> namespaces) {
        return namespaces.isEmpty() ? builder.withWatchAllNamespaces() : builder.withNamespaces(namespaces.get());
    }

    /** @param workloadNamespace where the profiles' namespaced objects live */
    public static OwnedInformers create(EventSourceContext<SchedulerProfile> context, String workloadNamespace) {
        return new OwnedInformers(context, workloadNamespace);
    }

    @SuppressWarnings("unchecked")
    private static <R extends HasMetadata> InformerEventSource<R, SchedulerProfile> ownedInformer(
            OwnedKind kind, String name, Optional<String> namespace, EventSourceContext<SchedulerProfile> context) {
        Class<R> type = (Class<R>) kind.type();
        InformerEventSourceConfiguration.Builder<R> builder = InformerEventSourceConfiguration.from(
                        type, SchedulerProfile.class)
                .withName(name)
                .withItemStore(new LeanItemStore<>())
                .withInformerListLimit(LIST_PAGE_SIZE)
                .withLabelSelector(MANAGED_SELECTOR)
                .withSecondaryToPrimaryMapper(OwnedInformers::profileOf);
        return new InformerEventSource<>(in(builder, namespace.map(Set::of)).build(), context);
    }

    /**
     * Where the informer of {@code kind} lists and watches: cluster-scoped kinds cluster-wide; namespaced kinds in the
     * workload namespace only, plus kube-system for the kinds a profile puts there (the RoleBinding to the
     * authentication reader), so that the operator's Roles there suffice.
     */
    static Optional<Set<String>> informerNamespaces(OwnedKind kind, String workloadNamespace) {
        if (kind.scope() == OwnedKind.Scope.CLUSTER) {
            return Optional.empty();
        }
        Set<String> namespaces = new java.util.TreeSet<>(Set.of(workloadNamespace));
        if (kind.alsoInKubeSystem()) {
            namespaces.add(Names.KUBE_SYSTEM);
        }
        return Optional.of(Set.copyOf(namespaces));
    }

    /** The (cluster-scoped) profile an owned object belongs to, from its profile label. */
    static Set<ResourceID> profileOf(HasMetadata object) {
        Map<String, String> labels = object.getMetadata().getLabels();
        String name = labels == null ? null : labels.get(Labels.PROFILE);
        return name == null ? Set.of() : Set.of(new ResourceID(name));
    }

    public List<EventSource<?, SchedulerProfile>> eventSources() {
        List<EventSource<?, SchedulerProfile>> sources = new ArrayList<>();
        owned.values().forEach(byNamespace -> sources.addAll(byNamespace.values()));
        sources.add(nodes);
        sources.add(pods);
        sources.add(apiServer);
        return sources;
    }

    /** The owned types watched here: every {@link OwnedKind}'s. */
    public static List<Class<? extends HasMetadata>> watchedTypes() {
        return Arrays.stream(OwnedKind.values())
                .<Class<? extends HasMetadata>>map(OwnedKind::type)
                .toList();
    }

    /** How many objects of an owned kind the informer caches now (0 before it started). */
    public long cachedCount(OwnedKind kind) {
        return owned.getOrDefault(kind.type(), Map.of()).values().stream()
                .mapToLong(informer -> informer.list(o -> true).count())
                .sum();
    }

    /** The cached copy of an owned object, if the informer has seen it. */
    public <R extends HasMetadata> Optional<R> cached(R like) {
        return cached(typeOf(like), ResourceID.fromResource(like));
    }

    public <R extends HasMetadata> Optional<R> cached(Class<R> type, ResourceID id) {
        InformerEventSource<R, SchedulerProfile> informer = informerOf(type, id);
        return informer == null ? Optional.empty() : informer.get(id);
    }

    /** Tells the informer about our own write, so its cache is current and it does not echo the write back. */
    public <R extends HasMetadata> void wrote(R before, R after) {
        ResourceID id = ResourceID.fromResource(after);
        InformerEventSource<R, SchedulerProfile> informer = informerOf(typeOf(after), id);
        if (informer == null) {
            return;
        }
        if (before == null) {
            informer.handleRecentResourceCreate(id, after);
        } else {
            informer.handleRecentResourceUpdate(id, after, before);
        }
    }

    /** Every cached object of every owned kind that carries the profile's labels, in {@link OwnedKind} order. */
    public List<HasMetadata> ownedBy(Names names) {
        List<HasMetadata> found = new ArrayList<>();
        for (Map<String, InformerEventSource<? extends HasMetadata, SchedulerProfile>> byNamespace : owned.values()) {
            for (InformerEventSource<? extends HasMetadata, SchedulerProfile> informer : byNamespace.values()) {
                informer.list(object -> carriesProfileLabels(object, names)).forEach(found::add);
            }
        }
        return found;
    }

    private static boolean carriesProfileLabels(HasMetadata object, Names names) {
        Map<String, String> labels = object.getMetadata().getLabels();
        return labels != null && names.profile().equals(labels.get(Labels.PROFILE));
    }

    /** The cached pods of one component (extender or scheduler) of a profile. */
    public List<Pod> podsOf(Names names, String component) {
        return pods.list(
                        names.namespace(),
                        pod -> carriesProfileLabels(pod, names)
                                && component.equals(
                                        pod.getMetadata().getLabels().get(Labels.COMPONENT)))
                .toList();
    }

    public long nodesLabelled(String labelKey) {
        return nodes.list(node -> node.getMetadata().getLabels() != null
                        && node.getMetadata().getLabels().containsKey(labelKey))
                .count();
    }

    /** Whether the number of nodes differs from the last node event's (the cache already holds this event's node). */
    private boolean nodeCountChanged() {
        int now = nodeCount();
        return lastNodeCount.getAndSet(now) != now;
    }

    /**
     * Where pods reach the API server: every address of the kubernetes Service's EndpointSlice with its port, sorted
     * (a stable order keeps the rendered policy's hash still); empty before the informer has it.
     */
    public List<ApiServerEndpoint> apiServerEndpoints() {
        return apiServer
                .list(slice -> true)
                .flatMap(OwnedInformers::endpointsOf)
                .sorted(java.util.Comparator.comparing(ApiServerEndpoint::toString))
                .distinct()
                .toList();
    }

    static java.util.stream.Stream<ApiServerEndpoint> endpointsOf(EndpointSlice slice) {
        if (slice.getPorts() == null || slice.getEndpoints() == null) {
            return java.util.stream.Stream.empty();
        }
        List<Integer> ports = slice.getPorts().stream()
                .map(EndpointPort::getPort)
                .filter(Objects::nonNull)
                .toList();
        return slice.getEndpoints().stream()
                .filter(e -> e.getAddresses() != null)
                .flatMap(e -> e.getAddresses().stream())
                .flatMap(address -> ports.stream().map(port -> new ApiServerEndpoint(address, port)));
    }

    /** Every Node in the cluster, cordoned or not. */
    public int nodeCount() {
        return (int) nodes.list(node -> true).count();
    }

    /** The informer that watches where {@code id} lives; null for a type or namespace not watched. */
    @SuppressWarnings("unchecked")
    private <R extends HasMetadata> InformerEventSource<R, SchedulerProfile> informerOf(Class<R> type, ResourceID id) {
        Map<String, InformerEventSource<? extends HasMetadata, SchedulerProfile>> byNamespace = owned.get(type);
        if (byNamespace == null) {
            return null;
        }
        return (InformerEventSource<R, SchedulerProfile>) byNamespace.getOrDefault(
                ALL_NAMESPACES, byNamespace.get(id.getNamespace().orElse(ALL_NAMESPACES)));
    }

    @SuppressWarnings("unchecked")
    private static <R extends HasMetadata> Class<R> typeOf(R object) {
        return (Class<R>) object.getClass();
    }
}
