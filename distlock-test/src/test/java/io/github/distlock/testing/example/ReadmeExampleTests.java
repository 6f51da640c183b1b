package io.github.distlock.testing.example;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The README's "Testing your own locks" shows code that runs: each of its Java blocks is, line by line, part of a
 * source file here, so the example cannot drift from {@link OrderServiceLockTests}.
 */
class ReadmeExampleTests {

	private static final String SECTION = "### Testing your own locks";

	/** The README's blocks, in its order: every class the example uses, whole with its imports, then the test. */
	private static final List<String> FILES = List.of("OrderService.java", "Ledger.java", "StaleTokenException.java",
			"PaymentGateway.java", "OrderServiceLockTests.java");

	@Test
	void theReadmeShowsTheServiceItsClassesAndTheTestThatRunHere() throws IOException {
		List<List<String>> blocks = javaBlocks(readmeSection());
		assertThat(blocks).hasSize(FILES.size());
		for (int i = 0; i < FILES.size(); i++) {
			assertThat(contains(source(FILES.get(i)), blocks.get(i)))
				.as("%s contains %s", FILES.get(i), blocks.get(i))
				.isTrue();
		}
	}

	private static List<String> readmeSection() throws IOException {
		List<String> lines = Files.readAllLines(Path.of(System.getProperty("user.dir")).resolveSibling("README.md"));
		int start = lines.indexOf(SECTION);
		assertThat(start).as("README.md has a section '%s'", SECTION).isNotNegative();
		int end = start + 1;
		while (end < lines.size() && !lines.get(end).startsWith("## ") && !lines.get(end).startsWith("### ")) {
			end++;
		}
		return lines.subList(start, end);
	}

	private static List<List<String>> javaBlocks(List<String> section) {
		List<List<String>> blocks = new ArrayList<>();
		List<String> block = null;
		for (String line : section) {
			if (block == null && line.equals("```java")) {
				block = new ArrayList<>();
			}
			else if (block != null && line.equals("```")) {
				blocks.add(block);
				block = null;
			}
			else if (block != null) {
				block.add(line.strip());
			}
		}
		return blocks;
	}

	/** The file's lines, stripped, since the README may indent a method less than its class does. */
	private static List<String> source(String name) throws IOException {
		return Files.readAllLines(Path.of("src/test/java/io/github/distlock/testing/example", name))
			.stream()
			.map(String::strip)
			.toList();
	}

	private static boolean contains(List<String> file, List<String> block) {
		return Collections.indexOfSubList(file, block) >= 0;
	}

}
