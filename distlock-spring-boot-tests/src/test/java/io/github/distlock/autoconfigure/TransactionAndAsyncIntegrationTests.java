package io.github.distlock.autoconfigure;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import javax.sql.DataSource;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.scheduling.annotation.Async;
import org.springframework.scheduling.annotation.EnableAsync;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.annotation.EnableTransactionManagement;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

import io.github.distlock.DistributedLock;
import io.github.distlock.LockContext;
import io.github.distlock.fixtures.redis.RedisExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The lock around transactions and asynchronous work: acquired before a transaction begins and released after it
 * completes, also when the locked method joins its caller's transaction; held around {@code @Async} work itself.
 * Two application instances share one H2 database and one redis-server.
 */
class TransactionAndAsyncIntegrationTests {

	@RegisterExtension
	static final RedisExtension redis = RedisExtension.anyServer();

	private static final String LOCK = "distlock:{counter:c}";

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, DataRedisAutoConfiguration.class,
				RedisLockEngineAutoConfiguration.class, DistLockAutoConfiguration.class))
		.withUserConfiguration(Database.class, CounterService.class, OuterService.class, AsyncService.class)
		.withPropertyValues(redis.springProperties());

	@Configuration(proxyBeanMethods = false)
	@EnableTransactionManagement
	@EnableAsync
	static class Database {

		@Bean
		DataSource dataSource() {
			// One named in-memory database, shared by every context in this JVM: two "instances", one database.
			return new DriverManagerDataSource("jdbc:h2:mem:distlock-tx;DB_CLOSE_DELAY=-1");
		}

		@Bean
		JdbcTemplate jdbcTemplate(DataSource dataSource) {
			JdbcTemplate jdbc = new JdbcTemplate(dataSource);
			jdbc.execute("CREATE TABLE IF NOT EXISTS counter (id VARCHAR(10) PRIMARY KEY, n INT)");
			return jdbc;
		}

		@Bean
		PlatformTransactionManager transactionManager(DataSource dataSource) {
			return new DataSourceTransactionManager(dataSource);
		}

	}

	public static class CounterService {

		private final JdbcTemplate jdbc;

		public CounterService(JdbcTemplate jdbc) {
			this.jdbc = jdbc;
		}

		/** A read-modify-write that loses updates unless the lock covers the commit. */
		@DistributedLock(key = "#id", name = "counter", waitTime = "60s")
		@Transactional
		public void increment(String id, Runnable beforeReturn) {
			int n = this.jdbc.queryForObject("SELECT n FROM counter WHERE id = ?", Integer.class, id);
			Thread.yield();
			this.jdbc.update("UPDATE counter SET n = ? WHERE id = ?", n + 1, id);
			beforeReturn.run();
		}

	}

	public static class OuterService {

		private final CounterService counter;

		public OuterService(CounterService counter) {
			this.counter = counter;
		}

		/** Starts a transaction the locked method joins; the lock must outlive the call until this commits. */
		@Transactional
		public void incrementInOuterTransaction(String id, Runnable afterLockedCall) {
			this.counter.increment(id, () -> {
			});
			afterLockedCall.run();
		}

	}

	public static class AsyncService {

		@Async
		@DistributedLock(key = "#id", name = "async")
		public CompletableFuture<String> work(String id, CountDownLatch started, CountDownLatch proceed)
				throws InterruptedException {
			started.countDown();
			proceed.await(30, TimeUnit.SECONDS);
			return CompletableFuture.completedFuture(Thread.currentThread().getName() + " token "
					+ LockContext.current().token());
		}

	}

	private static void resetCounter(JdbcTemplate jdbc) {
		jdbc.update("MERGE INTO counter KEY (id) VALUES ('c', 0)");
	}

	@Test
	void theLockIsAcquiredBeforeTheTransactionAndReleasedAfterItCommits() {
		this.runner.run((context) -> {
			resetCounter(context.getBean(JdbcTemplate.class));
			List<String> seen = new ArrayList<>();
			context.getBean(CounterService.class).increment("c", () -> {
				seen.add("in transaction: " + TransactionSynchronizationManager.isActualTransactionActive());
				seen.add("lock held: " + RedisKeys.exists(redis, LOCK));
				TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {

					@Override
					public void afterCommit() {
						seen.add("after commit, lock held: " + RedisKeys.exists(redis, LOCK));
					}

				});
			});
			assertThat(seen).containsExactly("in transaction: true", "lock held: true",
					"after commit, lock held: true");
			assertThat(RedisKeys.exists(redis, LOCK)).isFalse();
		});
	}

	@Test
	void aLockedMethodThatJoinsItsCallersTransactionKeepsTheLockUntilThatCommits() {
		this.runner.run((context) -> {
			resetCounter(context.getBean(JdbcTemplate.class));
			List<Boolean> heldAfterLockedCall = new ArrayList<>();
			context.getBean(OuterService.class)
				.incrementInOuterTransaction("c", () -> heldAfterLockedCall.add(RedisKeys.exists(redis, LOCK)));
			assertThat(heldAfterLockedCall).containsExactly(true);
			assertThat(RedisKeys.exists(redis, LOCK)).isFalse();
		});
	}

	@Test
	void twoInstancesNeverReadStateFromBeforeTheOthersCommit() {
		this.runner.run((first) -> this.runner.run((second) -> {
			JdbcTemplate jdbc = first.getBean(JdbcTemplate.class);
			resetCounter(jdbc);
			List<Runnable> increments = List.of(
					() -> first.getBean(CounterService.class).increment("c", () -> {
					}), () -> second.getBean(CounterService.class).increment("c", () -> {
					}), () -> first.getBean(OuterService.class).incrementInOuterTransaction("c", () -> {
					}), () -> second.getBean(OuterService.class).incrementInOuterTransaction("c", () -> {
					}));
			int threads = 8;
			int perThread = 25;
			ExecutorService pool = Executors.newFixedThreadPool(threads);
			CountDownLatch start = new CountDownLatch(1);
			List<Future<?>> futures = new ArrayList<>();
			for (int t = 0; t < threads; t++) {
				Runnable increment = increments.get(t % increments.size());
				futures.add(pool.submit(() -> {
					start.await();
					for (int i = 0; i < perThread; i++) {
						increment.run();
					}
					return null;
				}));
			}
			start.countDown();
			for (Future<?> future : futures) {
				future.get(120, TimeUnit.SECONDS);
			}
			pool.shutdown();
			assertThat(jdbc.queryForObject("SELECT n FROM counter WHERE id = 'c'", Integer.class))
				.isEqualTo(threads * perThread);
			assertThat(RedisKeys.locks(redis)).isEmpty();
		}));
	}

	@Test
	void anAsyncLockedMethodHoldsTheLockAroundTheAsynchronousWork() {
		this.runner.run((context) -> {
			CountDownLatch started = new CountDownLatch(1);
			CountDownLatch proceed = new CountDownLatch(1);
			CompletableFuture<String> result = context.getBean(AsyncService.class).work("a", started, proceed);
			assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
			assertThat(RedisKeys.exists(redis, "distlock:{async:a}")).as("held while the work runs").isTrue();
			assertThat(result).isNotDone();
			proceed.countDown();
			assertThat(result.get(10, TimeUnit.SECONDS)).doesNotStartWith(Thread.currentThread().getName())
				.contains(" token ");
			assertThat(RedisKeys.exists(redis, "distlock:{async:a}")).as("released when the work is done").isFalse();
		});
	}

}
