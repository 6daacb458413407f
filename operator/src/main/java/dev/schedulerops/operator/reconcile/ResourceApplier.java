package dev.schedulerops.operator.reconcile;

import dev.schedulerops.operator.api.SchedulerProfile;
import dev.schedulerops.operator.model.Names;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.List;
import java.util.Objects;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies rendered objects with server-side apply, forcing ownership of every field the renderer sets. An object the
 * informer already holds as rendered is not sent at all ({@link AlreadyApplied}): a profile at rest costs no write
 * request. After a hand edit or deletion the cached object differs and the apply puts it back: drift repair is the
 * same call as creation.
 */
public final class ResourceApplier {
    public static final String FIELD_MANAGER = "schedulerops-operator";

    private static final Logger LOG = LoggerFactory.getLogger(ResourceApplier.class);

    private final KubernetesClient client;
    private final OwnedInformers informers;
    private final BooleanSupplier stopping;

    /** @param stopping true once the operator stops: no write is made after that (see {@link Stopping}) */
    public ResourceApplier(KubernetesClient client, OwnedInformers informers, BooleanSupplier stopping) {
        this.client = client;
        this.informers = informers;
        this.stopping = stopping;
    }

    /** Thrown instead of a write once the operator stops: what the write was decided on may be an emptied cache. */
    public static final class Stopping extends RuntimeException {
        public Stopping(String what) {
            super(what, null, false, false);
        }
    }

    /**
     * The outcome of applying one object.
     *
     * @param object the object as the API server returned it
     * @param before the cached object before the apply, or null if there was none
     */
    public record Applied(HasMetadata object, HasMetadata before) {

        /** It did not exist before (first creation, or it was deleted by hand). */
        public boolean created() {
            return before == null;
        }

        /** It existed and the apply changed it (a new resourceVersion). */
        public boolean changed() {
            return before != null
                    && !Objects.equals(
                            before.getMetadata().getResourceVersion(),
                            object.getMetadata().getResourceVersion());
        }
    }

    /** Applies {@code desired}, which must be of an {@link OwnedKind} (else it would go unwatched and never torn down). */
    public Applied apply(SchedulerProfile owner, HasMetadata desired) {
        if (stopping.getAsBoolean()) {
            throw new Stopping(desired.getKind() + " " + qualifiedName(desired));
        }
        OwnedKind.of(desired);
        // The profile is cluster-scoped, so it can own every object, namespaced or not: garbage collection is the
        // backstop behind ProfileTeardown's ordered deletion.
        desired.getMetadata().setOwnerReferences(List.of(ownerReference(owner)));
        AlreadyApplied.stamp(desired);
        HasMetadata before = informers.cached(desired).orElse(null);
        if (AlreadyApplied.in(before, desired)) {
            return new Applied(before, before); // nothing would change: no request at all
        }
        HasMetadata after = client.resource(desired)
                .fieldManager(FIELD_MANAGER)
                .forceConflicts()
                .serverSideApply();
        Applied applied = new Applied(after, before);
        if (applied.created() || applied.changed()) {
            LOG.info("{} {} {}", applied.created() ? "created" : "updated", after.getKind(), qualifiedName(after));
            informers.wrote(before, after);
        }
        return applied;
    }

    /** The cached objects that carry the profile's labels. */
    public List<HasMetadata> ownedBy(Names names) {
        return informers.ownedBy(names);
    }

    /** Deletes an owned object; false when it was already gone (the cache can lag behind our own earlier delete). */
    public boolean delete(HasMetadata object) {
        boolean deleted = !client.resource(object).delete().isEmpty();
        if (deleted) {
            LOG.info("deleted {} {}", object.getKind(), qualifiedName(object));
        }
        return deleted;
    }

    static OwnerReference ownerReference(SchedulerProfile owner) {
        return new OwnerReferenceBuilder()
                .withApiVersion(SchedulerProfile.API_VERSION)
                .withKind(SchedulerProfile.KIND)
                .withName(owner.getMetadata().getName())
                .withUid(owner.getMetadata().getUid())
                .withController(true)
                .withBlockOwnerDeletion(true)
                .build();
    }

    static String qualifiedName(HasMetadata object) {
        String namespace = object.getMetadata().getNamespace();
        return namespace == null
                ? object.getMetadata().getName()
                : namespace + "/" + object.getMetadata().getName();
    }
}
