package dev.schedulerops.operator.validation;

import java.util.ArrayList;
import java.util.List;

/** Collects messages in kube-scheduler's {@code <field path>: <detail>} style. */
final class Findings {

    private final List<String> errors = new ArrayList<>();
    private final List<String> warnings = new ArrayList<>();

    void error(String path, String detail) {
        errors.add(path + ": " + detail);
    }

    void warning(String path, String detail) {
        warnings.add(path + ": " + detail);
    }

    /** {@code field.Invalid}: {@code Invalid value: <value>: <detail>}. */
    void invalid(String path, Object value, String detail) {
        error(path, "Invalid value: " + GoValues.shown(value) + ": " + detail);
    }

    /** {@code field.NotSupported}: {@code Unsupported value: "x": supported values: "a", "b"}. */
    void notSupported(String path, Object value, List<String> supported) {
        StringBuilder detail = new StringBuilder("Unsupported value: ").append(GoValues.format(value));
        if (!supported.isEmpty()) {
            detail.append(": supported values: ");
            for (int i = 0; i < supported.size(); i++) {
                detail.append(i == 0 ? "" : ", ").append(GoValues.quote(supported.get(i)));
            }
        }
        error(path, detail.toString());
    }

    /** {@code field.Required}: {@code Required value: <detail>}. */
    void required(String path, String detail) {
        error(path, detail.isEmpty() ? "Required value" : "Required value: " + detail);
    }

    /** {@code field.Duplicate}: {@code Duplicate value: <value>}. */
    void duplicate(String path, Object value) {
        error(path, "Duplicate value: " + GoValues.format(value));
    }

    /** {@code field.Forbidden}: {@code Forbidden: <detail>}. */
    void forbidden(String path, String detail) {
        error(path, "Forbidden: " + detail);
    }

    int errorCount() {
        return errors.size();
    }

    ValidationResult toResult() {
        return new ValidationResult(errors, warnings);
    }
}
