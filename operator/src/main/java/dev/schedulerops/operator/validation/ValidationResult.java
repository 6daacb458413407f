package dev.schedulerops.operator.validation;

import java.util.List;

/**
 * What validation found. {@code errors} are configurations kube-scheduler would refuse to start with; {@code
 * warnings} are accepted by kube-scheduler but almost certainly not what the user meant.
 */
public record ValidationResult(List<String> errors, List<String> warnings) {

    public ValidationResult {
        errors = List.copyOf(errors);
        warnings = List.copyOf(warnings);
    }

    public boolean isValid() {
        return errors.isEmpty();
    }
}
