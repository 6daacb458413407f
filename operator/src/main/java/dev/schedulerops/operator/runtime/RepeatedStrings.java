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
 * names, mount paths, the API server's defaults such as {@code IfNotPresent} or {@code /dev/termination-log}); each
 * decoded value was a string of its own, and strings were the largest part of the operator's live heap.
 *
 * <p>A direct-mapped table of the last value seen per slot: a value equal to the slot's is replaced by it; any other
 * takes the slot. Nothing is kept beyond {@link #SLOTS} values, so values seen once (uids, resource versions,
 * timestamps, keys) cost nothing lasting, and a value that repeats only now and then may stay a copy of its own. Races
 * between threads are harmless: a slot holds some complete string, and a lost write costs only a copy.
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
        int hash = value.hashCode();
        int slot = (hash ^ (hash >>> 16)) & (SLOTS - 1);
        String seen = slots[slot];
        if (value.equals(seen)) {
            return seen;
        }
        slots[slot] = value;
        return value;
    }

    /**
     * The Kubernetes client's serialization, whose every decoded string value (fields, list items, map values) goes
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
