package io.github.distlock.architecture;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import com.tngtech.archunit.core.domain.JavaClasses;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The arrows between the library's modules, as Maven declares them, said once more in the compiled classes: the core
 * knows no engine, no store client and no Spring Boot; an engine knows the core and its own store's client, and no
 * other engine; the ShedLock provider, Spring Integration's lock registry, the AspectJ aspect and the engines'
 * conformance kit know the engine SPI and no engine; nothing in the library knows the auto-configuration or the test fixtures. Maven would let a new dependency in
 * silently (a transitive one needs no declaration); these rules fail on the first class that uses it. Checked on the
 * main classes of every library module on this module's class path (all but the users' test module, which builds on the
 * auto-configuration and is checked in its own build).
 */
class ModuleArrowsArchitectureTests {

	private static final String CORE = "io.github.distlock";

	private static final List<String> ENGINES = List.of("redis", "jdbc", "zookeeper", "etcd");

	/** Each store's client library, which only its own engine (and the auto-configuration) may use. */
	private static final Map<String, String> STORE_CLIENTS = Map.of("redis", "org.redisson..", "zookeeper",
			"org.apache.curator..", "etcd", "io.etcd..");

	/**
	 * What no library module may use: the auto-configuration, the users' test module, and the servers and processes
	 * distlock's own tests start.
	 */
	private static final String[] APPLICATION_SIDE = { "io.github.distlock.autoconfigure..",
			"io.github.distlock.actuate..", "io.github.distlock.testing..", "io.github.distlock.fixtures..",
			"io.github.distlock.processes.." };

	private static JavaClasses library;

	@BeforeAll
	static void importMainClasses() {
		library = LibraryMainClasses.importAll();
	}

	static List<String> modules() {
		return List.of("core", "redis", "jdbc", "zookeeper", "etcd", "shedlock", "integration", "aspectj",
				"conformance");
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("modules")
	void aModuleUsesOnlyWhatItsArrowsAllow(String module) {
		String[] packages = packagesOf(module);
		assertThat(library.stream().filter((javaClass) -> resideIn(javaClass.getPackageName(), packages)))
			.as("main classes of %s on the class path", module)
			.isNotEmpty();
		noClasses().that()
			.resideInAnyPackage(packages)
			.should()
			.dependOnClassesThat()
			.resideInAnyPackage(forbiddenFor(module))
			.because(module + " may use only the modules and libraries its Maven arrows declare")
			.check(library);
	}

	/**
	 * The process launcher sits under both the users' test module and distlock's own fixtures, which the rules above
	 * keep apart: it may know nothing but the JDK, or it would drag one side's dependencies into the other.
	 */
	@Test
	void theProcessesModuleKnowsOnlyTheJdk() {
		classes().that()
			.resideInAPackage(CORE + ".processes..")
			.should()
			.onlyDependOnClassesThat()
			.resideInAnyPackage("java..", "org.jspecify..", CORE + ".processes..")
			.because("distlock-processes declares no dependency")
			.check(library);
	}

	/** The module's own packages, as ArchUnit patterns. */
	private static String[] packagesOf(String module) {
		if (module.equals("core")) {
			return new String[] { CORE, CORE + ".engine..", CORE + ".execution..", CORE + ".interceptor..",
					CORE + ".leader.." };
		}
		return new String[] { CORE + "." + module + ".." };
	}

	/** What the module must not use: other engines and their clients, Spring Boot, the application side. */
	private static String[] forbiddenFor(String module) {
		List<String> forbidden = new ArrayList<>(List.of(APPLICATION_SIDE));
		forbidden.add("org.springframework.boot..");
		for (String engine : ENGINES) {
			if (!engine.equals(module)) {
				forbidden.add(CORE + "." + engine + "..");
				String client = STORE_CLIENTS.get(engine);
				if (client != null) {
					forbidden.add(client);
				}
			}
		}
		for (String other : List.of("shedlock", "integration", "aspectj", "conformance")) {
			if (!other.equals(module)) {
				forbidden.add(CORE + "." + other + "..");
			}
		}
		return forbidden.toArray(String[]::new);
	}

	private static boolean resideIn(String packageName, String[] patterns) {
		for (String pattern : patterns) {
			String prefix = pattern.endsWith("..") ? pattern.substring(0, pattern.length() - 2) : pattern;
			if (pattern.endsWith("..") ? (packageName.equals(prefix) || packageName.startsWith(prefix + "."))
					: packageName.equals(prefix)) {
				return true;
			}
		}
		return false;
	}

}
