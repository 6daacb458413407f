package dev.schedulerops.operator.model;

import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * Which image repositories a profile may name in {@code spec.extender.image} and {@code spec.scheduler.image}: the
 * installer's choice (operator setting SCHEDULEROPS_ALLOWED_IMAGE_REPOSITORIES, Helm value
 * {@code allowedImageRepositories}), not the profile writer's. An entry is a repository ({@code registry/path/name},
 * matched exactly) or a prefix ending in {@code /} (every repository under it). The images the operator uses when a
 * profile names none are the installer's own settings and always allowed.
 *
 * @param allowedRepositories repositories and {@code /}-terminated prefixes
 */
public record ImagePolicy(Set<String> allowedRepositories) {

    /** {@code repository[:tag][@sha256:digest]}; the repository may carry a registry port ({@code host:5000/x}). */
    private static final Pattern REFERENCE = Pattern.compile(
            "(?<repository>[a-z0-9]+(?:[._-][a-z0-9]+)*(?::[0-9]+)?(?:/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)*)"
                    + "(?::(?<tag>[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}))?"
                    + "(?:@(?<digest>sha256:[a-f0-9]{64}))?");

    public ImagePolicy {
        allowedRepositories = Set.copyOf(allowedRepositories);
    }

    /** The default: the repository of the operator's extender image and the kube-scheduler repository. */
    public static ImagePolicy defaults(String extenderImage, String schedulerImageRepository) {
        return new ImagePolicy(Set.of(repositoryOf(extenderImage).orElse(extenderImage), schedulerImageRepository));
    }

    /** The repository of an image reference, or empty when it is not one. */
    public static Optional<String> repositoryOf(String image) {
        var m = REFERENCE.matcher(image);
        return m.matches() ? Optional.of(m.group("repository")) : Optional.empty();
    }

    /** Whether {@code image} is pinned by digest ({@code repo@sha256:...}), the recommended form. */
    public static boolean pinnedByDigest(String image) {
        var m = REFERENCE.matcher(image);
        return m.matches() && m.group("digest") != null;
    }

    /**
     * Why {@code image}, named by a profile at {@code field}, is refused, or empty when it is allowed. The message
     * names the image, the allowed repositories and the setting that changes them.
     */
    public Optional<String> refusal(String field, String image) {
        Optional<String> repository = repositoryOf(image);
        if (repository.isPresent() && allows(repository.get())) {
            return Optional.empty();
        }
        String problem = repository.isEmpty()
                ? "is not an image reference (repository[:tag][@sha256:digest])"
                : "is not in a repository this installation allows";
        return Optional.of(field + ": Forbidden: image \"" + image + "\" " + problem + "; allowed: "
                + String.join(", ", new TreeSet<>(allowedRepositories))
                + ". Use an allowed repository (pinned by digest, repo@sha256:..., is recommended), or ask the"
                + " cluster's administrators to add it to the operator setting SCHEDULEROPS_ALLOWED_IMAGE_REPOSITORIES"
                + " (Helm value allowedImageRepositories)");
    }

    /** The refusals of every image the profile names (none when it names none). */
    public List<String> refusals(ResolvedProfile profile) {
        List<String> refusals = new java.util.ArrayList<>();
        profile.extender()
                .image()
                .flatMap(i -> refusal("spec.extender.image", i))
                .ifPresent(refusals::add);
        profile.scheduler()
                .image()
                .flatMap(i -> refusal("spec.scheduler.image", i))
                .ifPresent(refusals::add);
        return refusals;
    }

    private boolean allows(String repository) {
        return allowedRepositories.stream()
                .anyMatch(
                        allowed -> allowed.endsWith("/") ? repository.startsWith(allowed) : repository.equals(allowed));
    }
}
