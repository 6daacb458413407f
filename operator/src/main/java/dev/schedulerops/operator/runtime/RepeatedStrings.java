package dev.schedulerops.operator.runtime;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.deser.std.StringDeserializer;
import com.fasterxml.jackson.databind.module.SimpleModule;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.IOException;

/**
 * One copy of a string value that the API server sends again and again. The informers cache every object the profiles
 * own, and most of their string values repeat from object to object (label values, images, container and volume
 * names, namespaces, owner kinds, the API server's defaults such as {@code IfNotPresent}); each decoded value was a
 * string of its own, and strings were the largest part of the operator's live heap.
 *
 * <p>A direct-mapped table of the last value seen per slot: a value equal to the slot's is replaced by it; any other
 * takes the slot. The table holds at most {@link #SLOTS} values of at most {@link #MAX_LENGTH} characters (a few MB at
 * the very worst), so a value seen once (a uid, a resource version) is kept only until another value takes its slot,
 * and a value that repeats only now and then may stay a copy of its own. Races between threads are harmless: a
 * String's fields are final, so a slot read by another thread holds a whole string or null, and a lost write costs
 * only a copy.
 *
 * <p>What Jackson decodes as a string goes through it: fields, list items, map values and untyped values. Types with
 * deserializers of their own that read a tree first ({@code Quantity}) do not; their parts stay copies.
 */
public final class RepeatedStrings {
    /** A power of two. */
    static final int SLOTS = 1 << 14;
    /** Longer values (certificates, configs) rarely repeat; comparing them would cost more than it saves. */
    static final int MAX_LENGTH = 128;

    private final String[] slots = new String[SLOTS];

    /** {@code value}, or an equal string seen before. */
    public String share(String value) {
        if (value == null || value.length() > MAX_LENGTH) {
            return value;
        }
        int slot = slot(value);
        String seen = slots[slot];
        if (value.equals(seen)) {
            return seen;
        }
        slots[slot] = value;
        return value;
    }

    static int slot(String value) {
        int hash = value.hashCode();
        return (hash ^ (hash >>> 16)) & (SLOTS - 1);
    }

    /**
     * The Kubernetes client's serialization (fabric8's own modules and settings), with decoded string values going
     * through {@link #share}. Map keys need nothing: Jackson already keeps one copy of each field name.
     */
    public static KubernetesSerialization serialization() {
        RepeatedStrings strings = new RepeatedStrings();
        ObjectMapper mapper = new ObjectMapper();
        mapper.registerModule(
                new SimpleModule("schedulerops-repeated-strings").addDeserializer(String.class, new Shared(strings)));
        return new KubernetesSerialization(mapper, true);
    }

    /** Jackson's own string decoding, then {@link #share}. */
    static final class Shared extends StringDeserializer {
        private final transient RepeatedStrings strings;

        Shared(RepeatedStrings strings) {
            this.strings = strings;
        }

        @Override
        public String deserialize(JsonParser parser, DeserializationContext context) throws IOException {
            return strings.share(super.deserialize(parser, context));
        }
    }
}
