package io.github.distlock.architecture;

import com.tngtech.archunit.core.domain.JavaClasses;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The core's packages point one way: the annotation's side ({@code interceptor}: advice, parsing, one strategy per
 * return type) builds on the execution core ({@code execution}: holding a lock around work, wherever the work comes
 * from), which builds on the API and the engine SPI. Neither the API nor the execution core knows the annotation's
 * side, so the template and the ShedLock provider run without it. Leader election ({@code leader}) holds one lock
 * through the engine SPI and runs no work under it; of the rest of the core, only the annotation's side knows it, to
 * run {@code @LeaderOnly} methods.
 */
class CorePackagesArchitectureTests {

	private static final String API = "io.github.distlock";

	private static final String ENGINE = "io.github.distlock.engine..";

	private static final String EXECUTION = "io.github.distlock.execution..";

	private static final String INTERCEPTOR = "io.github.distlock.interceptor..";

	private static final String LEADER = "io.github.distlock.leader..";

	private static JavaClasses library;

	@BeforeAll
	static void importMainClasses() {
		library = LibraryMainClasses.importAll();
	}

	@Test
	void theApiTheEngineSpiAndTheExecutionCoreKnowNothingOfTheInterceptor() {
		assertThat(library.stream().filter((javaClass) -> javaClass.getPackageName().startsWith(API + ".interceptor")))
			.as("the interceptor's classes on the class path")
			.isNotEmpty();
		noClasses().that()
			.resideInAnyPackage(API, ENGINE, EXECUTION)
			.should()
			.dependOnClassesThat()
			.resideInAnyPackage(INTERCEPTOR)
			.because("the annotation's side builds on the execution core, never the other way round")
			.check(library);
	}

	@Test
	void theEngineSpiKnowsNothingOfTheExecutionCore() {
		noClasses().that()
			.resideInAnyPackage(ENGINE)
			.should()
			.dependOnClassesThat()
			.resideInAnyPackage(EXECUTION)
			.because("an engine holds locks; what is done while they are held is the execution core's")
			.check(library);
	}

	@Test
	void theApiUsesTheExecutionCoreOnlyForItsStaticLookups() {
		noClasses().that()
			.resideInAPackage(API)
			.and()
			.doNotHaveSimpleName("LockContext")
			.and()
			.doNotHaveSimpleName("ReactiveLockContext")
			.should()
			.dependOnClassesThat()
			.resideInAnyPackage(EXECUTION)
			.because("only the API's lookups of the current lock read what the execution core keeps")
			.check(library);
	}

	@Test
	void leaderElectionBuildsOnTheEngineSpiAloneAndOnlyTheAnnotationsSideKnowsIt() {
		assertThat(library.stream().filter((javaClass) -> javaClass.getPackageName().startsWith(API + ".leader")))
			.as("leader election's classes on the class path")
			.isNotEmpty();
		noClasses().that()
			.resideInAnyPackage(LEADER)
			.should()
			.dependOnClassesThat()
			.resideInAnyPackage(EXECUTION, INTERCEPTOR)
			.because("an election holds one lock through the engine SPI and lends it to work it does not run")
			.check(library);
		noClasses().that()
			.resideInAnyPackage(API, ENGINE, EXECUTION)
			.should()
			.dependOnClassesThat()
			.resideInAnyPackage(LEADER)
			.because("leader election is an add-on to the core, which works without it")
			.check(library);
	}

}
