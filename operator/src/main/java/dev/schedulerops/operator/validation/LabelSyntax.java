package dev.schedulerops.operator.validation;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/** apimachinery's {@code IsQualifiedName} and {@code IsValidLabelValue}, with the same messages. */
final class LabelSyntax {

    private static final String QUALIFIED_NAME_FMT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
    private static final String QUALIFIED_NAME_ERR =
            "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric"
                    + " character";
    private static final Pattern QUALIFIED_NAME = Pattern.compile("^" + QUALIFIED_NAME_FMT + "$");
    private static final int QUALIFIED_NAME_MAX_LENGTH = 63;

    private static final String LABEL_VALUE_FMT = "(" + QUALIFIED_NAME_FMT + ")?";
    private static final String LABEL_VALUE_ERR =
            "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must"
                    + " start and end with an alphanumeric character";
    private static final Pattern LABEL_VALUE = Pattern.compile("^" + LABEL_VALUE_FMT + "$");
    private static final int LABEL_VALUE_MAX_LENGTH = 63;

    private static final String DNS1123_LABEL_FMT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
    private static final String DNS1123_SUBDOMAIN_FMT = DNS1123_LABEL_FMT + "(\\." + DNS1123_LABEL_FMT + ")*";
    private static final String DNS1123_SUBDOMAIN_ERR =
            "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must"
                    + " start and end with an alphanumeric character";
    private static final Pattern DNS1123_SUBDOMAIN = Pattern.compile("^" + DNS1123_SUBDOMAIN_FMT + "$");
    private static final int DNS1123_SUBDOMAIN_MAX_LENGTH = 253;

    private LabelSyntax() {}

    static List<String> qualifiedNameErrors(String value) {
        List<String> errors = new ArrayList<>();
        String[] parts = value.split("/", -1);
        String name;
        if (parts.length == 1) {
            name = parts[0];
        } else if (parts.length == 2) {
            String prefix = parts[0];
            name = parts[1];
            if (prefix.isEmpty()) {
                errors.add("prefix part must be non-empty");
            } else {
                dns1123SubdomainErrors(prefix).forEach(message -> errors.add("prefix part " + message));
            }
        } else {
            errors.add("a qualified name "
                    + regexError(QUALIFIED_NAME_ERR, QUALIFIED_NAME_FMT, "MyName", "my.name", "123-abc")
                    + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')");
            return errors;
        }
        if (name.isEmpty()) {
            errors.add("name part must be non-empty");
        } else if (name.length() > QUALIFIED_NAME_MAX_LENGTH) {
            errors.add("name part must be no more than " + QUALIFIED_NAME_MAX_LENGTH + " characters");
        }
        if (!QUALIFIED_NAME.matcher(name).matches()) {
            errors.add(
                    "name part " + regexError(QUALIFIED_NAME_ERR, QUALIFIED_NAME_FMT, "MyName", "my.name", "123-abc"));
        }
        return errors;
    }

    static List<String> labelValueErrors(String value) {
        List<String> errors = new ArrayList<>();
        if (value.length() > LABEL_VALUE_MAX_LENGTH) {
            errors.add("must be no more than " + LABEL_VALUE_MAX_LENGTH + " characters");
        }
        if (!LABEL_VALUE.matcher(value).matches()) {
            errors.add(regexError(LABEL_VALUE_ERR, LABEL_VALUE_FMT, "MyValue", "my_value", "12345"));
        }
        return errors;
    }

    static List<String> dns1123SubdomainErrors(String value) {
        List<String> errors = new ArrayList<>();
        if (value.length() > DNS1123_SUBDOMAIN_MAX_LENGTH) {
            errors.add("must be no more than " + DNS1123_SUBDOMAIN_MAX_LENGTH + " characters");
        }
        if (!DNS1123_SUBDOMAIN.matcher(value).matches()) {
            errors.add(regexError(DNS1123_SUBDOMAIN_ERR, DNS1123_SUBDOMAIN_FMT, "example.com"));
        }
        return errors;
    }

    private static String regexError(String message, String format, String... examples) {
        StringBuilder out = new StringBuilder(message).append(" (e.g. ");
        for (int i = 0; i < examples.length; i++) {
            out.append(i > 0 ? " or " : "").append('\'').append(examples[i]).append("', ");
        }
        return out.append("regex used for validation is '")
                .append(format)
                .append("')")
                .toString();
    }
}
