package io.github.distlock.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import javax.sql.DataSource;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.annotation.Transactional;

import io.github.distlock.DistributedLock;
import io.github.distlock.LockAcquisitionException;
import io.github.distlock.LockContext;
import io.github.distlock.LockDefinitionException;
import io.github.distlock.LockMode;
import io.github.distlock.LockStoreConnectionException;
import io.github.distlock.engine.LockEngine;
import io.github.distlock.engine.LockRequest;
import io.github.distlock.jdbc.JdbcLockEngine;
import io.github.distlock.redis.RedisLockEngine;
import io.github.distlock.fixtures.jdbc.PrivateDatabase;

/**
 * The JDBC engine as an application gets it: distlock-jdbc and a DataSource on the class path, Spring Boot's
 * {@code spring.datasource.*}, and the choice between engines. Runs on a private database of the machine's
 * PostgreSQL.
 */
class JdbcLockEngineAutoConfigurationTests {

	private static PrivateDatabase database;

	@BeforeAll
	static void createDatabase() {
		database = PrivateDatabase.postgresql();
	}

	@AfterAll
	static void dropDatabase() {
		database.close();
	}

	/** Contexts that have both engines on the class path, as the starter plus distlock-jdbc gives. */
	private final ApplicationContextRunner bothEngines = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, DataSourceAutoConfiguration.class,
				DataSourceTransactionManagerAutoConfiguration.class, TransactionAutoConfiguration.class,
				RedisLockEngineAutoConfiguration.class, JdbcLockEngineAutoConfiguration.class,
				DistLockAutoConfiguration.class))
		.withPropertyValues("spring.datasource.url=" + database.url(), "spring.datasource.username=" + database.user())
		.withUserConfiguration(Orders.class);

	/** Contexts with the JDBC engine alone: the Redis engine's classes are not there. */
	private final ApplicationContextRunner jdbcOnly = this.bothEngines
		.withClassLoader(new FilteredClassLoader(RedisLockEngine.class));

	@Test
	void theOnlyEngineOnTheClassPathLocksAnnotatedMethodsInTheDatabase() throws Exception {
		this.jdbcOnly.withPropertyValues("distlock.jdbc.initialize-schema=true").run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context.getBean(LockEngine.class)).isInstanceOf(JdbcLockEngine.class);
			Orders orders = context.getBean(Orders.class);
			ExecutorService executor = Executors.newSingleThreadExecutor();
			try {
				CountDownLatch inside = new CountDownLatch(1);
				CountDownLatch leave = new CountDownLatch(1);
				Future<Long> holder = executor.submit(() -> orders.pay("order-1", inside, leave));
				assertThat(inside.await(10, TimeUnit.SECONDS)).isTrue();
				assertThatExceptionOfType(LockAcquisitionException.class)
					.isThrownBy(() -> orders.pay("order-1", new CountDownLatch(1), new CountDownLatch(0)));
				assertThat(new JdbcTemplate(context.getBean(DataSource.class))
					.queryForObject("SELECT COUNT(*) FROM distlock_locks WHERE holder IS NOT NULL", Long.class))
					.as("the lock is a row of the application's database").isEqualTo(1L);
				leave.countDown();
				long token = holder.get(10, TimeUnit.SECONDS);
				long next = orders.pay("order-1", new CountDownLatch(1), new CountDownLatch(0));
				assertThat(next).isGreaterThan(token);
			}
			finally {
				executor.shutdownNow();
			}
		});
	}

	@Test
	void lockRowsCommitAtOnceEvenInsideTheApplicationsTransaction() {
		this.jdbcOnly.withPropertyValues("distlock.jdbc.initialize-schema=true").run((context) -> {
			Orders orders = context.getBean(Orders.class);
			JdbcLockEngine engine = context.getBean(JdbcLockEngine.class);
			orders.inTransaction(() -> {
				// Another instance sees the lock while this transaction is still open.
				assertThatExceptionOfType(LockAcquisitionException.class).isThrownBy(() -> engine
					.acquire(new LockRequest("orders", "tx", Duration.ofSeconds(5), Duration.ZERO, true, null)));
			});
		});
	}

	@Test
	void aLockTakenInATransactionThatRollsBackStaysTaken() {
		this.jdbcOnly.withPropertyValues("distlock.jdbc.initialize-schema=true").run((context) -> {
			Orders orders = context.getBean(Orders.class);
			long[] token = new long[1];
			assertThatExceptionOfType(IllegalStateException.class).isThrownBy(() -> orders.inTransaction(() -> {
				token[0] = LockContext.current().token();
				throw new IllegalStateException("roll back");
			}));
			JdbcTemplate jdbc = new JdbcTemplate(context.getBean(DataSource.class));
			assertThat(jdbc.queryForObject("SELECT MAX(token) FROM distlock_locks WHERE lock_key = 'tx'", Long.class))
				.as("the acquisition's row outlived the rollback").isGreaterThanOrEqualTo(token[0]);
			assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM distlock_locks WHERE lock_key = 'tx' AND holder IS NULL",
					Long.class))
				.as("and was released after it").isEqualTo(1L);
		});
	}

	@Test
	void aReadWriteLockOrPermitsOnTheDatabaseEngineFailStartUpNamingTheMethod() {
		this.jdbcOnly.withPropertyValues("distlock.jdbc.initialize-schema=true")
			.withBean(Catalog.class)
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.isInstanceOf(LockDefinitionException.class)
				.hasMessageContaining("Catalog#read")
				.hasMessageContaining("mode = READ needs an engine with read/write locks")
				.hasMessageContaining("JdbcLockEngine"));
		this.jdbcOnly.withPropertyValues("distlock.jdbc.initialize-schema=true")
			.withBean(Exports.class)
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.isInstanceOf(LockDefinitionException.class)
				.hasMessageContaining("Exports#export")
				.hasMessageContaining("permits = \"2\" needs an engine with permits"));
	}

	public static class Catalog {

		@DistributedLock(name = "catalog", key = "#id", mode = LockMode.READ)
		public void read(String id) {
		}

	}

	public static class Exports {

		@DistributedLock(name = "exports", key = "'all'", permits = "2")
		public void export() {
		}

	}

	@Test
	void severalEnginesAndNoChoiceFailStartUpAskingForOne() {
		this.bothEngines.run((context) -> assertThat(context).hasFailed()
			.getFailure()
			.hasMessageContaining("several lock engines on the class path (redis, jdbc)")
			.hasMessageContaining("set distlock.backend"));
	}

	@Test
	void distlockBackendChoosesAmongSeveralEngines() {
		this.bothEngines.withPropertyValues("distlock.backend=jdbc", "distlock.jdbc.initialize-schema=true")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context).hasSingleBean(LockEngine.class);
				assertThat(context.getBean(LockEngine.class)).isInstanceOf(JdbcLockEngine.class);
			});
	}

	@Test
	void aMissingLockTableFailsStartUpNamingTheTableAndTheFix() {
		this.jdbcOnly.withPropertyValues("distlock.jdbc.table-name=missing_locks").run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).rootCause().hasMessageContaining("missing_locks");
			Throwable failure = context.getStartupFailure();
			while (failure != null && !(failure instanceof LockStoreConnectionException)) {
				failure = failure.getCause();
			}
			assertThat(failure).isInstanceOf(LockStoreConnectionException.class)
				.hasMessageContaining("distlock cannot use its lock table 'missing_locks'");
			assertThat(((LockStoreConnectionException) failure).getAction())
				.contains("distlock.jdbc.initialize-schema=true");
		});
	}

	@Test
	void aTableNameThatIsNotAnIdentifierIsRefused() {
		this.jdbcOnly.withPropertyValues("distlock.jdbc.table-name=locks; DROP TABLE x").run((context) -> assertThat(
				context)
			.hasFailed()
			.getFailure()
			.rootCause()
			.hasMessageContaining("must be a plain SQL identifier"));
	}

	public static class Orders {

		@DistributedLock(name = "orders", key = "#orderId", waitTime = "0s")
		public long pay(String orderId, CountDownLatch inside, CountDownLatch leave) throws InterruptedException {
			inside.countDown();
			assertThat(leave.await(10, TimeUnit.SECONDS)).isTrue();
			return LockContext.current().token();
		}

		@Transactional
		@DistributedLock(name = "orders", key = "'tx'", waitTime = "0s")
		public void inTransaction(Runnable inside) {
			inside.run();
		}

	}

	/** {@link AbstractKeySetWaitTests} on this class's database. */
	@Nested
	class KeySetWait extends AbstractKeySetWaitTests {

		@Override
		ApplicationContextRunner runner() {
			return JdbcLockEngineAutoConfigurationTests.this.jdbcOnly.withPropertyValues("distlock.jdbc.initialize-schema=true");
		}

	}

}
