package dev.schedulerops.extender.bind;

import dev.schedulerops.extender.protocol.BindingArgs;
import java.util.function.Consumer;

/**
 * A binder that reports what became of each bind: every answer is a 200 to kube-scheduler (a failure travels in the
 * reply's {@code Error}), so the request counter cannot tell a bound pod from a refused one.
 */
public final class CountingBinder implements Binder {
    private final Binder binder;
    private final Consumer<String> outcome;

    /** @param outcome told {@link #outcome(BindResult)} of every result */
    public CountingBinder(Binder binder, Consumer<String> outcome) {
        this.binder = binder;
        this.outcome = outcome;
    }

    @Override
    public BindResult bind(BindingArgs args) {
        BindResult result = binder.bind(args);
        outcome.accept(outcome(result));
        return result;
    }

    /** A fixed label value per kind of result: {@code bound}, {@code refused}, {@code pod_unreadable}, {@code failed}. */
    public static String outcome(BindResult result) {
        if (result instanceof BindResult.Bound) {
            return "bound";
        }
        if (result instanceof BindResult.Refused) {
            return "refused";
        }
        if (result instanceof BindResult.PodUnreadable) {
            return "pod_unreadable";
        }
        return "failed";
    }
}
