package dev.schedulerops.operator.render;

import java.util.List;

/** The outcome of rendering a profile: the desired objects, or the reasons it cannot be rolled out. */
public sealed interface RenderResult {

    record Valid(DesiredState state) implements RenderResult {}

    record Invalid(List<String> errors) implements RenderResult {
        public Invalid {
            errors = List.copyOf(errors);
            if (errors.isEmpty()) {
                throw new IllegalArgumentException("an invalid result needs at least one error");
            }
        }
    }
}
