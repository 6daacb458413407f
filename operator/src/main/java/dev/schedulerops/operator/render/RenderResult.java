package dev.schedulerops.operator.render;

import java.util.List;

/** The outcome of rendering a profile: the desired objects, or the reasons it cannot be rolled out. */
public sealed interface RenderResult {

    record Valid(DesiredState state) implements RenderResult {}

    /**
     * @param errors what is wrong, each a sentence a person can act on
     * @param refusal which kind of refusal: the reason of the status conditions
     */
    record Invalid(List<String> errors, Refusal refusal) implements RenderResult {
        public Invalid {
            errors = List.copyOf(errors);
            if (errors.isEmpty()) {
                throw new IllegalArgumentException("an invalid result needs at least one error");
            }
        }

        /** The profile itself is wrong. */
        public Invalid(List<String> errors) {
            this(errors, Refusal.INVALID_CONFIG);
        }
    }

    /** Why a profile is not rolled out; {@link #reason()} is the status conditions' reason. */
    enum Refusal {
        /** The spec breaks a rule (the CRD's, kube-scheduler's or the operator's). */
        INVALID_CONFIG("InvalidConfig"),
        /** The operator's workload namespace is one it must render nothing into (an installation mistake). */
        PROTECTED_NAMESPACE("ProtectedNamespace"),
        /** The profile names an image outside the repositories the installation allows. */
        IMAGE_NOT_ALLOWED("ImageNotAllowed"),
        /** The cluster runs a Kubernetes version whose kube-scheduler rules this operator does not know. */
        UNSUPPORTED_KUBERNETES_VERSION("UnsupportedKubernetesVersion");

        private final String reason;

        Refusal(String reason) {
            this.reason = reason;
        }

        public String reason() {
            return reason;
        }
    }
}
