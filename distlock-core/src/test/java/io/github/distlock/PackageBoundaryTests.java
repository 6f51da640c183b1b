package io.github.distlock;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The core (API, engine SPI, interceptor) and the engines never import Spring Boot, so plain Spring applications can
 * use them; the core imports no engine and no Redis client. Maven's module dependencies enforce this at compile time;
 * this test says it in words and fails before a dependency is added that would allow it.
 */
class PackageBoundaryTests {

	/** The core's and the engines' main sources, from this module's directory. */
	private static final List<Path> LIBRARY = List.of(Path.of("src/main/java"),
			Path.of("../distlock-redis/src/main/java"));

	@Test
	void theCoreAndTheEnginesImportNoSpringBoot() throws IOException {
		List<Path> sources = sources(LIBRARY);
		assertThat(sources).allSatisfy((file) -> assertThat(Files.readString(file))
			.as(file.toString())
			.doesNotContain("import org.springframework.boot"));
	}

	@Test
	void theCoreImportsNoEngineAndNoRedisClient() throws IOException {
		List<Path> sources = sources(List.of(Path.of("src/main/java")));
		assertThat(sources).allSatisfy((file) -> assertThat(Files.readString(file))
			.as(file.toString())
			.doesNotContain("import org.redisson")
			.doesNotContain("import io.github.distlock.redis"));
	}

	private static List<Path> sources(List<Path> roots) throws IOException {
		List<Path> sources = new java.util.ArrayList<>();
		for (Path root : roots) {
			try (Stream<Path> files = Files.walk(root)) {
				List<Path> found = files.filter((file) -> file.toString().endsWith(".java")).toList();
				assertThat(found).as("sources found under " + root.toAbsolutePath()).hasSizeGreaterThan(10);
				sources.addAll(found);
			}
		}
		return sources;
	}

}
