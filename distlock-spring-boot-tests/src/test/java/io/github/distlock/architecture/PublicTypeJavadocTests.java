package io.github.distlock.architecture;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every public type of a published module has its javadoc: what a user sees in an IDE and in the javadoc jar. The
 * release build's doclint checks the comments that exist (and leaves members' missing ones alone); this checks that
 * no public type goes without one.
 */
class PublicTypeJavadocTests {

	/** A public top-level type's declaration, at the start of a line. */
	private static final Pattern PUBLIC_TYPE = Pattern.compile(
			"^public\\s+(?:(?:final|abstract|sealed|non-sealed|static)\\s+)*(?:class|interface|enum|record|@interface)\\s+(\\w+)",
			Pattern.MULTILINE);

	/** Annotations between the javadoc and the declaration, such as {@code @Target(...)} or {@code @FunctionalInterface}. */
	private static final Pattern TRAILING_ANNOTATIONS = Pattern.compile("(?:\\s*@[\\w.]+(?:\\([^@]*?\\))?)+\\s*$");

	@Test
	void everyPublicTypeOfAPublishedModuleHasItsJavadoc() throws Exception {
		List<String> types = new ArrayList<>();
		List<String> withoutJavadoc = new ArrayList<>();
		for (String module : BomTests.libraryModules()) {
			Path sources = BomTests.ROOT.resolve(module).resolve("src/main/java");
			if (!Files.isDirectory(sources)) {
				continue;
			}
			try (Stream<Path> files = Files.walk(sources)) {
				for (Path file : files.filter((path) -> path.toString().endsWith(".java")).toList()) {
					String type = publicType(file);
					if (type != null) {
						types.add(type);
						if (!hasJavadoc(file)) {
							withoutJavadoc.add(module + ": " + type);
						}
					}
				}
			}
		}
		assertThat(types).as("public types found").hasSizeGreaterThan(50);
		assertThat(withoutJavadoc).as("public types without javadoc").isEmpty();
	}

	private static String publicType(Path file) throws IOException {
		Matcher declaration = PUBLIC_TYPE.matcher(Files.readString(file));
		return declaration.find() ? declaration.group(1) : null;
	}

	/** Whether a javadoc comment of some words comes just before the declaration, annotations aside. */
	static boolean hasJavadoc(Path file) throws IOException {
		String source = Files.readString(file);
		Matcher declaration = PUBLIC_TYPE.matcher(source);
		if (!declaration.find()) {
			return true;
		}
		String before = TRAILING_ANNOTATIONS.matcher(source.substring(0, declaration.start())).replaceFirst("").strip();
		if (!before.endsWith("*/")) {
			return false;
		}
		int start = before.lastIndexOf("/**");
		return start >= 0 && before.substring(start + 3, before.length() - 2).replaceAll("[\\s*]", "").length() >= 10;
	}

}
