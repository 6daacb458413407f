package dev.schedulerops.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.schedulerops.e2e.support.Commands;
import dev.schedulerops.e2e.support.E2eSettings;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * deploy/image-sbom, which e2e/images runs for each image it pushes and a release runs for the published ones, on the
 * operator module's own SBOM (the build's, with the libraries the image carries): the image by digest, its base and
 * the base's packages, the application and every library, versions as the build resolved them.
 */
class ImageSbomTest {
    private static final String DIGEST = "sha256:" + "ab".repeat(32);

    @Test
    void theImageSbomListsTheImageItsBaseItsPackagesAndTheApplicationsLibraries(@TempDir Path dir) throws IOException {
        Path appBom = E2eSettings.repoRoot().resolve("operator/target/classes/META-INF/sbom/bom.json");
        assertThat(appBom)
                .as("the operator module's SBOM (./mvnw -pl operator -am package writes it)")
                .isRegularFile();
        Path packages = dir.resolve("packages");
        Files.writeString(packages, "libc6 2.36-9+deb12u9 amd64\nopenjdk-17-jre-headless 17.0.15+6-1~deb12u1 amd64\n");
        Path out = dir.resolve("operator.cdx.json");

        Commands.Result result = sbom(
                "--image",
                "ghcr.io/schedulerops/schedulerops-operator:0.1.0",
                "--digest",
                DIGEST,
                "--app-bom",
                appBom.toString(),
                "--base",
                "gcr.io/distroless/java17-debian12:nonroot",
                "--base-packages",
                packages.toString(),
                "--out",
                out.toString());
        assertThat(result.exitCode()).as(result.stderr()).isZero();

        JsonNode bom = Commands.json(Files.readString(out));
        assertThat(bom.path("bomFormat").asText()).isEqualTo("CycloneDX");
        assertThat(bom.path("specVersion").asText())
                .as("the spec version of the module's SBOM, whose components it carries")
                .isEqualTo(Commands.json(Files.readString(appBom))
                        .path("specVersion")
                        .asText());
        JsonNode image = bom.at("/metadata/component");
        assertThat(image.path("type").asText()).isEqualTo("container");
        assertThat(image.path("name").asText()).isEqualTo("ghcr.io/schedulerops/schedulerops-operator");
        assertThat(image.path("version").asText()).isEqualTo("0.1.0");
        assertThat(image.at("/hashes/0/content").asText()).isEqualTo("ab".repeat(32));
        List<String> purls = new ArrayList<>();
        List<String> names = new ArrayList<>();
        bom.path("components").forEach(c -> {
            purls.add(c.path("purl").asText());
            names.add(c.path("name").asText());
        });
        assertThat(names).contains("gcr.io/distroless/java17-debian12:nonroot", "libc6", "schedulerops-operator");
        assertThat(purls)
                .contains("pkg:deb/debian/openjdk-17-jre-headless@17.0.15%2B6-1~deb12u1?arch=amd64")
                .anyMatch(p -> p.startsWith("pkg:maven/com.fasterxml.jackson.core/jackson-databind@2.23.0"))
                .anyMatch(p -> p.startsWith("pkg:maven/org.bouncycastle/bcprov-jdk18on@1.87"))
                .anyMatch(p -> p.startsWith("pkg:maven/dev.schedulerops/schedulerops-http-guard@"))
                .noneMatch(p -> p.contains("jackson-databind@2.19"));
        assertThat(bom.path("dependencies").get(0).path("ref").asText())
                .isEqualTo(image.path("bom-ref").asText());
    }

    @Test
    void badArgumentsAreRefusedWithTheReason(@TempDir Path dir) {
        Commands.Result noDigest = sbom(
                "--image",
                "x/y:1",
                "--digest",
                "latest",
                "--app-bom",
                "/nonexistent",
                "--base",
                "b",
                "--out",
                dir.resolve("o").toString());
        assertThat(noDigest.exitCode()).isEqualTo(2);
        assertThat(noDigest.stderr()).contains("--digest must be sha256:");
        Commands.Result noBom = sbom(
                "--image",
                "x/y:1",
                "--digest",
                DIGEST,
                "--app-bom",
                "/nonexistent",
                "--base",
                "b",
                "--out",
                dir.resolve("o").toString());
        assertThat(noBom.exitCode()).isEqualTo(2);
        assertThat(noBom.stderr()).contains("no application SBOM at /nonexistent");
    }

    private static Commands.Result sbom(String... args) {
        List<String> command = new ArrayList<>(
                List.of(E2eSettings.repoRoot().resolve("deploy/image-sbom").toString()));
        command.addAll(List.of(args));
        return Commands.run(command, Duration.ofSeconds(30));
    }
}
