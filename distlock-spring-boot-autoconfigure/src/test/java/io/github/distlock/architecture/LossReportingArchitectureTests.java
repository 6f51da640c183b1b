package io.github.distlock.architecture;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import io.github.distlock.LockLostListener;
import io.github.distlock.LostLock;
import io.github.distlock.engine.LockEngineStatistics;
import io.github.distlock.engine.support.LostLocks;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every engine tells of a lost lock through {@link LostLocks} and by no other means: no other class of the core or
 * of an engine calls the application's {@link LockLostListener} or counts a loss. What a report says and does (the
 * count, the warning, the listener, a failing listener kept from the engine) is then the same on every engine.
 * Checked on the compiled main classes of the core and every engine, all on the class path of this module's Maven
 * execution {@code architecture}.
 */
class LossReportingArchitectureTests {

	/** The core and the engines; the auto-configuration's listener that calls every listener bean is the application's. */
	private static final String[] LIBRARY = { "io.github.distlock", "io.github.distlock.engine..",
			"io.github.distlock.interceptor..", "io.github.distlock.redis..", "io.github.distlock.jdbc..",
			"io.github.distlock.zookeeper..", "io.github.distlock.etcd.." };

	private static JavaClasses library;

	@BeforeAll
	static void importMainClasses() {
		library = new ClassFileImporter()
			.withImportOption((location) -> !location.contains("/test-classes/") && !location.contains("-tests.jar"))
			.withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
			.importPackages("io.github.distlock");
	}

	@Test
	void theEnginesAreAllThere() {
		for (String engine : new String[] { "redis.RedisLockEngine", "redis.RedLockEngine", "jdbc.JdbcLockEngine",
				"zookeeper.ZooKeeperLockEngine", "etcd.EtcdLockEngine" }) {
			assertThat(library.contain("io.github.distlock." + engine)).as(engine).isTrue();
		}
	}

	@Test
	void onlyLostLocksCallsTheListenerOrCountsALoss() {
		ArchRule rule = noClasses().that()
			.resideInAnyPackage(LIBRARY)
			.and()
			.doNotHaveFullyQualifiedName(LostLocks.class.getName())
			.should()
			.callMethod(LockLostListener.class, "onLockLost", LostLock.class)
			.orShould()
			.callMethod(LockEngineStatistics.class, "countLoss")
			.because("an engine reports a lost lock through LostLocks, so that every report is the same");
		rule.check(library);
	}

	@Test
	void lostLocksDoesBoth() {
		classes().that()
			.haveFullyQualifiedName(LostLocks.class.getName())
			.should()
			.callMethod(LockLostListener.class, "onLockLost", LostLock.class)
			.andShould()
			.callMethod(LockEngineStatistics.class, "countLoss")
			.check(library);
	}

}
