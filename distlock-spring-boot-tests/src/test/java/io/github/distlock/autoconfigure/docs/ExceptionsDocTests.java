package io.github.distlock.autoconfigure.docs;

import java.io.IOException;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.springframework.core.io.Resource;
import org.springframework.core.io.support.PathMatchingResourcePatternResolver;

import io.github.distlock.architecture.BomTests;
import io.github.distlock.autoconfigure.docs.DocPages.Row;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The exceptions table of the failure-handling page lists every public exception class distlock's library modules
 * ship, and nothing else: those on this module's class path, found by loading them, and those of every library
 * module's sources (an engine this test run leaves off its class path included), found by name.
 */
class ExceptionsDocTests {

	static final String PAGE = "docs/failure-handling.md";

	@Test
	void theExceptionsTableListsEveryPublicExceptionOfDistlock() throws Exception {
		Set<String> shipped = publicExceptions();
		shipped.addAll(publicExceptionSources());
		assertThat(shipped).as("public exceptions found on the class path").contains("LockAcquisitionException");
		Set<String> documented = new TreeSet<>();
		List<String> problems = new ArrayList<>();
		for (Row row : DocPages.page(PAGE).tableRows("type")) {
			List<String> names = DocPages.backticked(row.cell(0));
			if (names.isEmpty()) {
				problems.add(row.where() + ": a row that names no exception in backticks");
				continue;
			}
			documented.add(names.get(0));
			if (!shipped.contains(names.get(0))) {
				problems.add(row.where() + ": " + names.get(0) + " is no public exception class of distlock");
			}
		}
		for (String exception : shipped) {
			if (!documented.contains(exception)) {
				problems.add(PAGE + ": the exceptions table does not list " + exception);
			}
		}
		assertThat(problems).as("the exceptions table of " + PAGE).isEmpty();
	}

	/** The simple names of the public exceptions under io.github.distlock, from the library's main classes only. */
	static Set<String> publicExceptions() throws IOException, ClassNotFoundException {
		ClassLoader loader = ExceptionsDocTests.class.getClassLoader();
		Set<String> names = new TreeSet<>();
		for (Resource resource : new PathMatchingResourcePatternResolver(loader)
			.getResources("classpath*:io/github/distlock/**/*.class")) {
			String location = resource.getURL().toString();
			if (location.contains("/test-classes/") || location.contains("-tests.jar")) {
				continue;
			}
			String path = location.substring(location.lastIndexOf("io/github/distlock/"));
			String className = path.substring(0, path.length() - ".class".length()).replace('/', '.');
			if (className.endsWith("package-info") || className.endsWith("module-info")
					|| className.startsWith("io.github.distlock.fixtures.")) {
				// The fixtures are the servers distlock's own tests start: not published, nothing a user catches.
				continue;
			}
			Class<?> type;
			try {
				type = Class.forName(className, false, loader);
			}
			catch (LinkageError ex) {
				// A class of an optional integration whose library is absent here: it is no exception of ours.
				continue;
			}
			if (Throwable.class.isAssignableFrom(type) && isPublic(type)) {
				names.add(type.getSimpleName());
			}
		}
		return names;
	}

	private static final Pattern PUBLIC_EXCEPTION = Pattern
		.compile("^public\\s+(?:final\\s+|abstract\\s+)*class\\s+(\\w+(?:Exception|Error))\\b", Pattern.MULTILINE);

	/** The public top-level exception classes in the main sources of every library module, by their names. */
	static Set<String> publicExceptionSources() throws Exception {
		Set<String> names = new TreeSet<>();
		Path root = DocPages.root();
		// The published modules, the ones an application depends on.
		List<String> libraries = BomTests.libraryModules();
		try (Stream<Path> modules = Files.list(root)) {
			for (Path module : modules.filter((dir) -> dir.getFileName().toString().startsWith("distlock-"))
				.filter((dir) -> libraries.contains(dir.getFileName().toString()))
				.toList()) {
				Path sources = module.resolve("src/main/java/io/github/distlock");
				if (!Files.isDirectory(sources)) {
					continue;
				}
				try (Stream<Path> files = Files.walk(sources)) {
					for (Path file : files.filter((path) -> path.toString().endsWith(".java")).toList()) {
						Matcher matcher = PUBLIC_EXCEPTION.matcher(Files.readString(file));
						while (matcher.find()) {
							names.add(matcher.group(1));
						}
					}
				}
			}
		}
		return names;
	}

	private static boolean isPublic(Class<?> type) {
		for (Class<?> at = type; at != null; at = at.getEnclosingClass()) {
			if (!Modifier.isPublic(at.getModifiers())) {
				return false;
			}
		}
		return true;
	}

}
