package io.github.distlock.autoconfigure.docs;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import io.github.distlock.autoconfigure.docs.DocPages.JavaBlock;
import io.github.distlock.autoconfigure.docs.DocPages.Page;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Java and Kotlin the pages show compiles: every {@code ```java} and {@code ```kotlin} block of the README, the
 * docs and the module READMEs names, in a {@code <!-- source: ... -->} comment just above it, a source file one of the
 * modules compiles, and each of its lines is in that file, in the same order. A page may leave code out: a line
 * {@code ...} stands for any lines, and {@code ...} within a line for any text. Indentation and runs of spaces do not
 * count. A Kotlin block may instead be a Gradle build script, marked {@code <!-- build.gradle.kts -->}.
 */
class JavaSnippetDocTests {

	/** A source file the build compiles: a module's main or test Java or Kotlin sources. */
	private static final Pattern COMPILED = Pattern
		.compile("distlock-[a-z0-9-]+/src/(main|test)/(java/.+\\.java|kotlin/.+\\.kt)");

	private static final String LEFT_OUT = "...";

	@Test
	void everyJavaBlockIsTakenFromASourceTheBuildCompiles() {
		assertEveryBlockCompiled("java", Page::javaBlocks);
	}

	@Test
	void everyKotlinBlockIsTakenFromASourceTheBuildCompilesOrIsABuildScript() {
		assertEveryBlockCompiled("kotlin", Page::kotlinBlocks);
	}

	/** The pages have blocks of the language, and every one but a marked build script is in its source. */
	private static void assertEveryBlockCompiled(String language, Function<Page, List<JavaBlock>> blocksOf) {
		List<String> problems = new ArrayList<>();
		int compiled = 0;
		for (Page page : DocPages.allPages()) {
			for (JavaBlock block : blocksOf.apply(page)) {
				if (block.buildScript()) {
					continue;
				}
				compiled++;
				String problem = check(block);
				if (problem != null) {
					problems.add(problem);
				}
			}
		}
		assertThat(compiled).as(language + " blocks on the pages, build scripts aside").isPositive();
		assertThat(problems).as(language + " blocks that the build does not compile").isEmpty();
	}

	/** What is wrong with the block, or null if it is all in its source. */
	static String check(JavaBlock block) {
		if (block.source() == null) {
			return block.where() + ": a code block with no <!-- source: <file> --> comment above it";
		}
		if (!COMPILED.matcher(block.source()).matches()) {
			return block.where() + ": " + block.source() + " is no source file a module compiles";
		}
		Path file = DocPages.root().resolve(block.source());
		if (!Files.isRegularFile(file)) {
			return block.where() + ": its source " + block.source() + " does not exist";
		}
		List<String> source = DocPages.lines(file).stream().map(JavaSnippetDocTests::normalize).toList();
		int next = 0;
		for (String line : block.code()) {
			String shown = normalize(line);
			if (shown.isEmpty() || shown.equals(LEFT_OUT)) {
				continue;
			}
			Pattern pattern = pattern(shown);
			int found = -1;
			for (int i = next; i < source.size(); i++) {
				if (pattern.matcher(source.get(i)).matches()) {
					found = i;
					break;
				}
			}
			if (found < 0) {
				return block.where() + ": the line '" + line.strip() + "' is not in " + block.source()
						+ ((next > 0) ? " after its line " + next : "");
			}
			next = found + 1;
		}
		return null;
	}

	/** The line as it is compared: no indentation, runs of white space as one space. */
	private static String normalize(String line) {
		return line.strip().replaceAll("\\s+", " ");
	}

	/** The shown line as a pattern, where each {@code ...} stands for any text. */
	private static Pattern pattern(String shown) {
		StringBuilder regex = new StringBuilder();
		int from = 0;
		for (int at = shown.indexOf(LEFT_OUT); at >= 0; at = shown.indexOf(LEFT_OUT, from)) {
			regex.append(Pattern.quote(shown.substring(from, at))).append(".*");
			from = at + LEFT_OUT.length();
		}
		regex.append(Pattern.quote(shown.substring(from)));
		return Pattern.compile(regex.toString());
	}

}
