package dev.schedulerops.operator.reconcile;

import java.util.List;

/** Whether a profile can be rolled out, and if not, why: the input of the ConfigValid condition. */
public sealed interface ConfigOutcome {

    record Valid() implements ConfigOutcome {}

    record Invalid(List<String> errors) implements ConfigOutcome {
        public Invalid {
            errors = List.copyOf(errors);
        }
    }

    /** Another profile, {@code holder} ("namespace/name"), already claims the same schedulerName. */
    record Conflict(String schedulerName, String holder) implements ConfigOutcome {}
}
