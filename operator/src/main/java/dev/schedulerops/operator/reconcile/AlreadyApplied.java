package dev.schedulerops.operator.reconcile;

import com.fasterxml.jackson.databind.JsonNode;
import dev.schedulerops.operator.model.Labels;
import dev.schedulerops.operator.render.Yaml;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Whether the object the informer holds already has every field the operator would apply, with the same value: then
 * a server-side apply would change nothing, and the operator sends none, so a profile at rest costs the API server no
 * write however often it is reconciled. Fields the object has beyond the desired ones (server defaults, status,
 * other managers' fields) do not count, as server-side apply leaves them alone too. Lists must match item for item;
 * an empty list or map the operator renders matches an absent one, as the API server drops them.
 *
 * <p>A field the operator set before and no longer renders (a key dropped from a Secret) is not in the desired object,
 * so containment alone would keep it forever; server-side apply removes it only when the object is sent. Hence the
 * {@link Labels#APPLIED_HASH} stamp: the hash of the desired object is part of it, and a changed desired object
 * never matches what the last apply left.
 */
final class AlreadyApplied {
    private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();

    private AlreadyApplied() {}

    /** Puts the hash of {@code desired} (without the stamp) into its annotations. */
    static void stamp(HasMetadata desired) {
        Map<String, String> annotations = new LinkedHashMap<>();
        if (desired.getMetadata().getAnnotations() != null) {
            annotations.putAll(desired.getMetadata().getAnnotations());
        }
        annotations.remove(Labels.APPLIED_HASH);
        desired.getMetadata().setAnnotations(annotations);
        String hash = Yaml.hash(Yaml.write(desired));
        annotations.put(Labels.APPLIED_HASH, hash);
    }

    /** Whether {@code cached} holds {@code desired}, which {@link #stamp} has stamped. */
    static boolean in(HasMetadata cached, HasMetadata desired) {
        // The stamps first: when they differ (a change to apply), the whole objects need not be compared.
        if (cached == null || !Objects.equals(stampOf(cached), stampOf(desired))) {
            return false;
        }
        JsonNode want = SERIALIZATION.convertValue(desired, JsonNode.class);
        JsonNode have = SERIALIZATION.convertValue(cached, JsonNode.class);
        return contains(have, want);
    }

    static boolean contains(JsonNode have, JsonNode want) {
        if (want == null || want.isNull()) {
            return true;
        }
        if (isEmptyContainer(want)) {
            return have == null || have.isNull() || isEmptyContainer(have);
        }
        if (have == null || have.isNull()) {
            return false;
        }
        if (want.isObject()) {
            if (!have.isObject()) {
                return false;
            }
            Iterator<Map.Entry<String, JsonNode>> fields = want.fields();
            while (fields.hasNext()) {
                Map.Entry<String, JsonNode> field = fields.next();
                if (!contains(have.get(field.getKey()), field.getValue())) {
                    return false;
                }
            }
            return true;
        }
        if (want.isArray()) {
            if (!have.isArray() || have.size() != want.size()) {
                return false;
            }
            for (int i = 0; i < want.size(); i++) {
                if (!contains(have.get(i), want.get(i))) {
                    return false;
                }
            }
            return true;
        }
        if (want.isNumber() && have.isNumber()) {
            return want.decimalValue().compareTo(have.decimalValue()) == 0;
        }
        return want.equals(have);
    }

    private static String stampOf(HasMetadata object) {
        Map<String, String> annotations = object.getMetadata().getAnnotations();
        return annotations == null ? null : annotations.get(Labels.APPLIED_HASH);
    }

    private static boolean isEmptyContainer(JsonNode node) {
        return (node.isObject() || node.isArray()) && node.isEmpty();
    }
}
