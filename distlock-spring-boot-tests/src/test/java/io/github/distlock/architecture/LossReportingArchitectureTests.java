package io.github.distlock.architecture;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.lang.ArchRule;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import io.github.distlock.LockLostListener;
import io.github.distlock.LostLock;
import io.github.distlock.engine.LockEngineStatistics;
import io.github.distlock.engine.LockHandle;
import io.github.distlock.engine.support.EngineLocks;
import io.github.distlock.engine.support.HandleLife;
import io.github.distlock.engine.support.LostLocks;

import static com.tngtech.archunit.core.domain.JavaAccess.Predicates.target;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.equivalentTo;
import static com.tngtech.archunit.core.domain.properties.HasName.Predicates.name;
import static com.tngtech.archunit.core.domain.properties.HasName.Predicates.nameMatching;
import static com.tngtech.archunit.core.domain.properties.HasOwner.Predicates.With.owner;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every engine tells of a lost lock through {@link LostLocks} and by no other means: no other class of the core or
 * of an engine calls the application's {@link LockLostListener} or counts a loss. What a report says and does (the
 * count, the warning, the listener, a failing listener kept from the engine) is then the same on every engine. And
 * every leased engine finds, marks and tells its losses in one place, {@link EngineLocks}: once per loss, with its
 * reason, the holder told before the store frees the lock. The RedLock engine, which holds no store of its own but
 * parts on several, judges a lock lost from its parts and tells through {@link LostLocks} too. Checked on the
 * compiled main classes of the core and every engine, all on the class path of this module's Maven execution
 * {@code architecture}.
 */
class LossReportingArchitectureTests {

	/** The core and the engines; the auto-configuration's listener that calls every listener bean is the application's. */
	private static final String[] LIBRARY = { "io.github.distlock", "io.github.distlock.engine..",
			"io.github.distlock.execution..", "io.github.distlock.interceptor..", "io.github.distlock.redis..",
			"io.github.distlock.jdbc..", "io.github.distlock.zookeeper..", "io.github.distlock.etcd.." };

	private static JavaClasses library;

	@BeforeAll
	static void importMainClasses() {
		library = LibraryMainClasses.importAll();
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
	void onlyEngineLocksAndTheRedLockEngineTellOfALoss() {
		noClasses().that()
			.resideInAnyPackage(LIBRARY)
			.and()
			.doNotHaveFullyQualifiedName(EngineLocks.class.getName())
			.and()
			.doNotHaveFullyQualifiedName("io.github.distlock.redis.RedLockEngine")
			.and()
			.doNotHaveFullyQualifiedName(LostLocks.class.getName())
			.should()
			.callMethodWhere(target(owner(equivalentTo(LostLocks.class))).and(target(name("report"))))
			.because("a leased engine's loss is told by EngineLocks, once, with its reason")
			.check(library);
	}

	@Test
	void onlyTheCoreAndTheRedLockHandleMarkALockLost() {
		noClasses().that()
			.resideInAnyPackage(LIBRARY)
			.and()
			.resideOutsideOfPackage(EngineLocks.class.getPackageName())
			.and()
			.doNotHaveFullyQualifiedName("io.github.distlock.redis.RedLockHandle")
			.should()
			.callMethodWhere(target(owner(equivalentTo(HandleLife.class)))
				.and(target(nameMatching("lose|loseAtRelease"))))
			.because("a leased lock is marked lost only by EngineLocks, which tells of it in the same step")
			.check(library);
	}

	@Test
	void everyLeasedEngineKeepsItsLocksInEngineLocks() {
		for (String engine : new String[] { "redis", "jdbc", "zookeeper", "etcd" }) {
			String pkg = "io.github.distlock." + engine;
			assertThat(library.stream()
				.filter((javaClass) -> javaClass.getPackageName().equals(pkg))
				.flatMap((javaClass) -> javaClass.getConstructorCallsFromSelf().stream())
				.anyMatch((call) -> call.getTargetOwner().isEquivalentTo(EngineLocks.class)))
				.as("a class of %s makes its EngineLocks", pkg)
				.isTrue();
			assertThat(library.stream()
				.filter((javaClass) -> javaClass.getPackageName().equals(pkg))
				.filter((javaClass) -> javaClass.isAssignableTo(LockHandle.class))
				.filter((javaClass) -> !javaClass.getSimpleName().startsWith("RedLock"))
				.allMatch((javaClass) -> javaClass.isAssignableTo(
						"io.github.distlock.engine.support.LeasedLockHandle")))
				.as("every lock handle of %s is a LeasedLockHandle, whose loss only EngineLocks marks", pkg)
				.isTrue();
		}
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
