package dev.schedulerops.operator.reconcile;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Replaces every empty map and list field of the fabric8 model objects in a cached object's tree with the one shared
 * empty map or list.
 *
 * <p>The fabric8 model classes start every map and list field empty and allocated ({@code labels},
 * {@code annotations}, {@code additionalProperties}, {@code finalizers}, a container's {@code env} and so on), and
 * most of them stay empty: with 200 profiles the informers' caches held tens of thousands of them. The shared ones
 * are immutable: an object taken from a cache must not be changed (other readers share it), and an attempt to add to
 * an empty one now fails loudly instead of changing the cache. {@link Collections#emptyMap()} and {@link Collections#emptyList()}
 * (not {@code Map.of()}) because they answer a lookup of {@code null} as an empty {@code LinkedHashMap} does.
 */
final class SharedEmptyCollections {
    private static final String MODEL_PACKAGE = "io.fabric8.kubernetes.api.model";

    private static final ClassValue<Plan> PLANS = new ClassValue<>() {
        @Override
        protected Plan computeValue(Class<?> type) {
            return Plan.of(type);
        }
    };

    private SharedEmptyCollections() {}

    /** Shares the empty collections in {@code object}'s tree; returns how many it replaced. */
    static int share(Object object) {
        return visit(object, Collections.newSetFromMap(new IdentityHashMap<>()));
    }

    private static int visit(Object value, Set<Object> seen) {
        if (value == null) {
            return 0;
        }
        Collection<?> items =
                value instanceof Map<?, ?> map ? map.values() : value instanceof Collection<?> c ? c : null;
        if (items != null) {
            int replaced = 0;
            for (Object item : items) {
                replaced += visit(item, seen);
            }
            return replaced;
        }
        if (!isModel(value.getClass()) || !seen.add(value)) {
            return 0;
        }
        return PLANS.get(value.getClass()).apply(value, seen);
    }

    private static boolean isModel(Class<?> type) {
        return type.getPackageName().startsWith(MODEL_PACKAGE);
    }

    private static Object sharedEmpty(Object value) {
        if (value instanceof Map<?, ?> map && map.isEmpty() && map != Collections.emptyMap()) {
            return Collections.emptyMap();
        }
        if (value instanceof List<?> list && list.isEmpty() && list != Collections.emptyList()) {
            return Collections.emptyList();
        }
        return null;
    }

    /** For one model class: its fields that may hold a collection or another model object. */
    private record Plan(List<Field> fields) {
        static Plan of(Class<?> type) {
            List<Field> fields = new ArrayList<>();
            for (Class<?> c = type; c != null && isModel(c); c = c.getSuperclass()) {
                for (Field field : c.getDeclaredFields()) {
                    if (!Modifier.isStatic(field.getModifiers()) && !isLeaf(field.getType())) {
                        field.setAccessible(true);
                        fields.add(field);
                    }
                }
            }
            return new Plan(List.copyOf(fields));
        }

        private static boolean isLeaf(Class<?> type) {
            return type.isPrimitive()
                    || type == String.class
                    || Number.class.isAssignableFrom(type)
                    || type == Boolean.class
                    || type.isEnum();
        }

        int apply(Object object, Set<Object> seen) {
            int replaced = 0;
            try {
                for (Field field : fields) {
                    Object value = field.get(object);
                    Object empty = sharedEmpty(value);
                    if (empty != null && (field.getType() == Map.class || field.getType() == List.class)) {
                        field.set(object, empty);
                        replaced++;
                    } else {
                        replaced += visit(value, seen);
                    }
                }
            } catch (IllegalAccessException e) {
                throw new IllegalStateException(
                        "cannot read " + object.getClass().getName(), e);
            }
            return replaced;
        }
    }
}
