package dev.schedulerops.operator.reconcile;

import dev.schedulerops.operator.render.DesiredState;
import java.util.List;
import java.util.Objects;

/** Whether a profile can be rolled out, and if not, why: the input of the ConfigValid condition. */
public sealed interface ConfigOutcome {

    /** The profile renders and validates; {@code state} is everything it becomes. */
    record Valid(DesiredState state) implements ConfigOutcome {
        public Valid {
            Objects.requireNonNull(state, "state");
        }
    }

    record Invalid(List<String> errors) implements ConfigOutcome {
        public Invalid {
            errors = List.copyOf(errors);
        }
    }

    /** Another profile, {@code holder} ("namespace/name"), already claims the same schedulerName. */
    record Conflict(String schedulerName, String holder) implements ConfigOutcome {}
}
