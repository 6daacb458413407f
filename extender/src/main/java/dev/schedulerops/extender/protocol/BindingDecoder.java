package dev.schedulerops.extender.protocol;

import static dev.schedulerops.extender.protocol.JsonFields.readObject;
import static dev.schedulerops.extender.protocol.JsonFields.readString;
import static dev.schedulerops.extender.protocol.JsonFields.requireNonEmpty;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;

/** Decodes {@code ExtenderBindingArgs}. */
final class BindingDecoder {
    private BindingDecoder() {}

    /** Decodes {@code ExtenderBindingArgs}. */
    static BindingArgs decode(byte[] body) throws BadRequestException {
        BindingArgs fields = readObject(body, BindingDecoder::readBindingFields);
        requireNonEmpty(fields.podName(), "PodName");
        requireNonEmpty(fields.podNamespace(), "PodNamespace");
        requireNonEmpty(fields.node(), "Node");
        // kube-scheduler always sends it; the binder binds only the pod with this UID.
        requireNonEmpty(fields.podUid(), "PodUID");
        return fields;
    }

    /** The binding fields as sent: any of them may be null. */
    private static BindingArgs readBindingFields(JsonParser p) throws IOException, BadRequestException {
        String podName = null;
        String podNamespace = null;
        String podUid = null;
        String node = null;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            JsonToken value = p.nextToken();
            if (field.equalsIgnoreCase("PodName")) {
                podName = readString(p, value, "PodName");
            } else if (field.equalsIgnoreCase("PodNamespace")) {
                podNamespace = readString(p, value, "PodNamespace");
            } else if (field.equalsIgnoreCase("PodUID")) {
                podUid = readString(p, value, "PodUID");
            } else if (field.equalsIgnoreCase("Node")) {
                node = readString(p, value, "Node");
            } else {
                p.skipChildren();
            }
        }
        return new BindingArgs(podName, podNamespace, podUid, node);
    }
}
