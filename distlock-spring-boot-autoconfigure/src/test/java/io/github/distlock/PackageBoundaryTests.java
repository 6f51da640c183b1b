package io.github.distlock;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The public API, the engines and the interceptor do not depend on Spring Boot, so they can move to a core module
 * that plain Spring applications use; only {@code autoconfigure} and the Actuator contributions in {@code actuate}
 * may.
 */
class PackageBoundaryTests {

	private static final Path SOURCES = Path.of("src/main/java/io/github/distlock");

	@Test
	void onlyTheAutoConfigurationImportsSpringBoot() throws IOException {
		List<Path> sources;
		try (Stream<Path> files = Files.walk(SOURCES)) {
			sources = files.filter((file) -> file.toString().endsWith(".java"))
				.filter((file) -> !SOURCES.relativize(file).startsWith("autoconfigure"))
				.filter((file) -> !SOURCES.relativize(file).startsWith("actuate"))
				.toList();
		}
		assertThat(sources).as("sources found under " + SOURCES.toAbsolutePath()).hasSizeGreaterThan(10);
		assertThat(sources).allSatisfy((file) -> assertThat(Files.readString(file))
			.as(file.toString())
			.doesNotContain("import org.springframework.boot"));
	}

}
