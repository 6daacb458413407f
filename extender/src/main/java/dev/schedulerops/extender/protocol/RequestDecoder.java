package dev.schedulerops.extender.protocol;

/**
 * Streaming decoder of the extender v1 requests. It walks the body token by token with Jackson's {@code JsonParser},
 * keeps only the fields a verb needs and skips everything else (pod specs, node status, images) without building
 * objects.
 *
 * <p>Keys are matched case-insensitively, as Go's {@code encoding/json} does; label keys inside {@code labels} are
 * map keys and match exactly. A JSON {@code null} where an object or list is expected means "absent", as in Go.
 *
 * <p>Names-only requests as kube-scheduler sends them take a faster path, {@link NamesOnlyScanner}, which reads
 * them to the same arguments and leaves every other body to {@link ArgsDecoder}.
 *
 * <p>One decoder per request kind: {@link ArgsDecoder}, {@link BindingDecoder}, {@link PreemptionDecoder}, over the
 * shared {@link JsonFields}.
 *
 * @see ArgsDecoder
 * @see BindingDecoder
 * @see PreemptionDecoder
 * @see JsonFields
 */
public final class RequestDecoder {
    private final ArgsDecoder args;
    private final byte[] labelKeyUtf8;

    public RequestDecoder(String labelKey) {
        this.args = new ArgsDecoder(labelKey);
        this.labelKeyUtf8 = labelKey.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    }

    /** Decodes {@code ExtenderArgs} (filter, filter_onlyone, prioritize). */
    public ExtenderArgs decodeArgs(byte[] body) throws BadRequestException {
        return decodeArgs(body, new int[0]);
    }

    /**
     * The same, with an array for the names' ranges that a names-only request may fill instead of a new one when it
     * is large enough: {@link ExtenderArgs#nameRanges} tells which array was used.
     */
    public ExtenderArgs decodeArgs(byte[] body, int[] reusableRanges) throws BadRequestException {
        return decodeArgs(body, body.length, reusableRanges);
    }

    /**
     * The same for a request in {@code body[0, length)}, an array that may be longer (a pooled one). Only a plain
     * full-node request is read in place; any other body is first copied to an array of its own length.
     */
    public ExtenderArgs decodeArgs(byte[] body, int length, int[] reusableRanges) throws BadRequestException {
        if (length == body.length) {
            ExtenderArgs plainNamesOnly = NamesOnlyScanner.scan(body, reusableRanges);
            if (plainNamesOnly != null) {
                return plainNamesOnly;
            }
        }
        ExtenderArgs plainFullNodes = FullNodesScanner.scan(body, length, labelKeyUtf8);
        if (plainFullNodes != null) {
            return plainFullNodes;
        }
        byte[] exact = length == body.length ? body : java.util.Arrays.copyOf(body, length);
        ExtenderArgs plainNamesOnly = exact == body ? null : NamesOnlyScanner.scan(exact, reusableRanges);
        return plainNamesOnly != null ? plainNamesOnly : args.decodeArgs(exact);
    }

    /** Decodes {@code ExtenderBindingArgs}. */
    public BindingArgs decodeBinding(byte[] body) throws BadRequestException {
        return BindingDecoder.decode(body);
    }

    /** Decodes {@code ExtenderPreemptionArgs}, from either full victims or meta victims. */
    public PreemptionArgs decodePreemption(byte[] body) throws BadRequestException {
        return PreemptionDecoder.decode(body);
    }
}
