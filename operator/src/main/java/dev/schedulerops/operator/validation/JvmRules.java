package dev.schedulerops.operator.validation;

import dev.schedulerops.operator.api.Defaults;
import dev.schedulerops.operator.api.JvmSpec;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The CEL rule on spec.extender.jvm.options, in Java: for {@code render} of a file the API server never saw, and so
 * that a profile admitted before the rule existed is still refused before it rolls out.
 */
final class JvmRules {
    private JvmRules() {}

    static void validate(String path, List<String> options, List<String> errors) {
        if (options == null) {
            return;
        }
        if (options.size() > Defaults.MAX_JVM_OPTIONS) {
            errors.add(GoValues.tooMany(path, options.size(), Defaults.MAX_JVM_OPTIONS, "items"));
        }
        for (int i = 0; i < options.size(); i++) {
            String option = options.get(i);
            if (option == null) {
                continue; // reported by the null-item check
            }
            String at = path + "[" + i + "]";
            // The API server counts characters (code points) for maxLength.
            if (option.codePointCount(0, option.length()) > Defaults.MAX_JVM_OPTION_LENGTH) {
                errors.add(at + ": Too long: may not be longer than " + Defaults.MAX_JVM_OPTION_LENGTH);
                continue;
            }
            problem(option)
                    .ifPresent(why -> errors.add(at + ": Invalid value: " + GoValues.shown(option) + ": " + why));
        }
    }

    /** The CRD's expression: RE2 and java.util.regex read it alike (it uses no construct they differ on). */
    private static final Pattern ALLOWED = Pattern.compile(JvmSpec.ALLOWED_OPTION);

    private static Optional<String> problem(String option) {
        return ALLOWED.matcher(option).matches() ? Optional.empty() : Optional.of(JvmSpec.OPTIONS_MESSAGE);
    }
}
