package dev.schedulerops.operator.validation;

import dev.schedulerops.operator.api.Defaults;
import dev.schedulerops.operator.api.JvmSpec;
import java.util.List;
import java.util.Optional;

/**
 * The CEL rules on spec.extender.jvm.options, in Java: for {@code render} of a file the API server never saw, and so
 * that a profile admitted before a rule existed is still refused before it rolls out.
 */
final class JvmRules {
    private JvmRules() {}

    static void validate(String path, List<String> options, List<String> errors) {
        if (options == null) {
            return;
        }
        if (options.size() > Defaults.MAX_JVM_OPTIONS) {
            errors.add(path + ": Too many: " + options.size() + ": must have at most " + Defaults.MAX_JVM_OPTIONS
                    + " items");
        }
        for (int i = 0; i < options.size(); i++) {
            String option = options.get(i);
            if (option == null) {
                continue; // reported by the null-item check
            }
            String at = path + "[" + i + "]";
            problem(option)
                    .ifPresent(why -> errors.add(at + ": Invalid value: " + GoValues.shown(option) + ": " + why));
        }
    }

    private static Optional<String> problem(String option) {
        if (option.length() > Defaults.MAX_JVM_OPTION_LENGTH) {
            return Optional.of("may not be longer than " + Defaults.MAX_JVM_OPTION_LENGTH);
        }
        if (!option.startsWith("-")
                || option.chars().anyMatch(c -> Character.isWhitespace(c) || c == '"' || c == '\'')) {
            return Optional.of("each JVM option starts with '-' and holds no whitespace or quotes");
        }
        return JvmSpec.REFUSED_PREFIXES.stream()
                .filter(option::startsWith)
                .findFirst()
                .map(prefix -> prefix + " is refused: JVM options may not load agents or option files");
    }
}
