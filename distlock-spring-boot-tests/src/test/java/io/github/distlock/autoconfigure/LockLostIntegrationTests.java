package io.github.distlock.autoconfigure;

import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import javax.sql.DataSource;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.annotation.EnableTransactionManagement;
import org.springframework.transaction.annotation.Transactional;

import io.github.distlock.DistributedLock;
import io.github.distlock.LockContext;
import io.github.distlock.LockLostException;
import io.github.distlock.LockLostListener;
import io.github.distlock.LostLock;
import io.github.distlock.OnLost;
import io.github.distlock.fixtures.redis.RedisExtension;
import io.github.distlock.fixtures.redis.RedisServer;
import io.github.distlock.fixtures.redis.RespClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * A lock lost while its method runs: the listener hears of it within one renewal interval, the method's
 * transaction does not commit, and the call ends with {@link LockLostException}. Real redis-server (deleted keys,
 * SIGSTOP, restart without persistence) and real transactions on H2.
 */
@ExtendWith(OutputCaptureExtension.class)
class LockLostIntegrationTests {

	@RegisterExtension
	static final RedisExtension redis = RedisExtension.localProcess();

	private static final String LOCK = "distlock:{stock:apple}";

	private static final long LEASE_MILLIS = 600;

	/**
	 * How long a test waits for a report it expects: a wait, not a bound. How soon the report came is checked apart,
	 * against the lease: a lock deleted from outside must be found by a renewal (NOT_OWNED) before the holder's own
	 * clock could have run the lease out (LEASE_EXPIRED).
	 */
	private static final Duration REPORT_WAIT = Duration.ofSeconds(10);

	/**
	 * The lease of a lock whose loss to a Redis restart must be told apart from an outage: renewed every third of it,
	 * it has at least two thirds left when Redis goes, far more than a restart takes even on a starved machine, so the
	 * renewal after the restart finds the key gone (NOT_OWNED) before the deadline could pass.
	 */
	private static final long RESTART_LEASE_MILLIS = 6000;

	static final BlockingQueue<LostLock> losses = new LinkedBlockingQueue<>();

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, DataRedisAutoConfiguration.class,
				RedisLockEngineAutoConfiguration.class, DistLockAutoConfiguration.class))
		.withUserConfiguration(Database.class, StockService.class, Listener.class)
		.withPropertyValues(redis.springProperties())
		.withPropertyValues("spring.data.redis.timeout=300ms");

	private ExecutorService executor;

	@BeforeEach
	void setUp() {
		losses.clear();
		this.executor = Executors.newCachedThreadPool();
	}

	@AfterEach
	void tearDown() throws InterruptedException {
		this.executor.shutdownNow();
		this.executor.awaitTermination(10, TimeUnit.SECONDS);
	}

	@Configuration(proxyBeanMethods = false)
	@EnableTransactionManagement
	static class Database {

		@Bean
		DataSource dataSource() {
			return new DriverManagerDataSource("jdbc:h2:mem:distlock-lost;DB_CLOSE_DELAY=-1");
		}

		@Bean
		JdbcTemplate jdbcTemplate(DataSource dataSource) {
			JdbcTemplate jdbc = new JdbcTemplate(dataSource);
			jdbc.execute("CREATE TABLE IF NOT EXISTS stock (sku VARCHAR(20) PRIMARY KEY, qty INT)");
			return jdbc;
		}

		@Bean
		PlatformTransactionManager transactionManager(DataSource dataSource) {
			return new DataSourceTransactionManager(dataSource);
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class Listener {

		@Bean
		LockLostListener recordingListener() {
			return losses::add;
		}

	}

	public static class StockService {

		private final JdbcTemplate jdbc;

		public StockService(JdbcTemplate jdbc) {
			this.jdbc = jdbc;
		}

		@DistributedLock(key = "#sku", name = "stock", lease = "600ms")
		@Transactional
		public long take(String sku, Runnable beforeWrite) {
			beforeWrite.run();
			this.jdbc.update("UPDATE stock SET qty = qty - 1 WHERE sku = ?", sku);
			return LockContext.current().token();
		}

		@DistributedLock(key = "#sku", name = "stock", lease = "300ms", autoRenew = false, waitTime = "10s")
		@Transactional
		public long takeWithHardLease(String sku, Runnable beforeWrite) {
			beforeWrite.run();
			this.jdbc.update("UPDATE stock SET qty = qty - 1 WHERE sku = ?", sku);
			return LockContext.current().token();
		}

		/** The next holder after a lease ran out: its own lease is not under test, so no stall may end it. */
		@DistributedLock(key = "#sku", name = "stock", lease = "30s", autoRenew = false, waitTime = "10s")
		@Transactional
		public long takeNext(String sku) {
			this.jdbc.update("UPDATE stock SET qty = qty - 1 WHERE sku = ?", sku);
			return LockContext.current().token();
		}

		@DistributedLock(key = "#sku", name = "stock", lease = "" + RESTART_LEASE_MILLIS + "ms")
		@Transactional
		public long takeAcrossARestart(String sku, Runnable beforeWrite) {
			beforeWrite.run();
			this.jdbc.update("UPDATE stock SET qty = qty - 1 WHERE sku = ?", sku);
			return LockContext.current().token();
		}

		@DistributedLock(key = "#sku", name = "stock", lease = "600ms", onLost = OnLost.INTERRUPT)
		public void waitInterruptibly(String sku, CountDownLatch started) throws InterruptedException {
			started.countDown();
			new CountDownLatch(1).await(30, TimeUnit.SECONDS);
		}

		@DistributedLock(key = "#sku", name = "stock", lease = "600ms", onLost = OnLost.IGNORE)
		@Transactional
		public void takeIdempotently(String sku, Runnable beforeWrite) {
			beforeWrite.run();
			this.jdbc.update("UPDATE stock SET qty = qty - 1 WHERE sku = ?", sku);
		}

	}

	private static void stock(JdbcTemplate jdbc, int qty) {
		jdbc.update("MERGE INTO stock KEY (sku) VALUES ('apple', ?)", qty);
	}

	private static int qty(JdbcTemplate jdbc) {
		return jdbc.queryForObject("SELECT qty FROM stock WHERE sku = 'apple'", Integer.class);
	}

	private static LostLock awaitLoss(Duration within) throws InterruptedException {
		LostLock loss = losses.poll(within.toNanos(), TimeUnit.NANOSECONDS);
		assertThat(loss).as("a LockLostListener call within " + within).isNotNull();
		return loss;
	}

	private static void deleteLockKey() {
		try (RespClient client = redis.client()) {
			assertThat(client.call("DEL", LOCK)).isEqualTo(1L);
		}
	}

	@Test
	void aLockDeletedFromOutsideIsReportedAndItsTransactionRolledBack(CapturedOutput output) {
		this.runner.run((context) -> {
			JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
			stock(jdbc, 10);
			AtomicLong detectedAfterMillis = new AtomicLong();
			assertThatExceptionOfType(LockLostException.class)
				.isThrownBy(() -> context.getBean(StockService.class).take("apple", () -> {
					deleteLockKey();
					long deleted = System.nanoTime();
					LostLock loss = awaitLossUnchecked(REPORT_WAIT);
					detectedAfterMillis.set(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - deleted));
					assertThat(loss.name()).isEqualTo("stock");
					assertThat(loss.key()).isEqualTo("apple");
					assertThat(loss.token()).isEqualTo(LockContext.current().token());
					assertThat(loss.reason()).isEqualTo(LostLock.Reason.NOT_OWNED);
				}))
				.satisfies((ex) -> assertThat(ex.getReason()).isEqualTo(LostLock.Reason.NOT_OWNED));
			assertThat(qty(jdbc)).as("the write was rolled back").isEqualTo(10);
			assertThat(detectedAfterMillis.get()).as("found by a renewal, within the lease").isLessThan(LEASE_MILLIS);
			assertThat(output).contains("WARN").contains("Lost lock 'stock' key 'apple'");
		});
	}

	@Test
	void aLeaseThatRunsOutLetsTheNextHolderInWithALargerTokenAndTheFirstCommitIsRefused() {
		this.runner.run((first) -> this.runner.run((second) -> {
			JdbcTemplate jdbc = first.getBean(JdbcTemplate.class);
			stock(jdbc, 10);
			CountDownLatch secondDone = new CountDownLatch(1);
			AtomicLong firstToken = new AtomicLong();
			AtomicLong secondToken = new AtomicLong();
			assertThatExceptionOfType(LockLostException.class)
				.isThrownBy(() -> first.getBean(StockService.class).takeWithHardLease("apple", () -> {
					firstToken.set(LockContext.current().token());
					Future<Long> next = this.executor.submit(() -> second.getBean(StockService.class).takeNext("apple"));
					try {
						secondToken.set(next.get(10, TimeUnit.SECONDS));
						secondDone.countDown();
					}
					catch (Exception ex) {
						throw new IllegalStateException(ex);
					}
				}));
			assertThat(secondDone.getCount()).isZero();
			assertThat(secondToken.get()).isGreaterThan(firstToken.get());
			assertThat(qty(jdbc)).as("only the second holder's write committed").isEqualTo(9);
			assertThat(awaitLoss(Duration.ofSeconds(1)).token()).isEqualTo(firstToken.get());
		}));
	}

	@Test
	void aStalledRedisBeyondTheLeaseIsALossAndNothingCommits() {
		this.runner.run((context) -> {
			JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
			stock(jdbc, 10);
			assertThatExceptionOfType(LockLostException.class)
				.isThrownBy(() -> context.getBean(StockService.class).take("apple", () -> {
					process().pause();
					try {
						assertThat(awaitLossUnchecked(Duration.ofMillis(LEASE_MILLIS + 1000)).reason())
							.isEqualTo(LostLock.Reason.STORE_UNREACHABLE);
					}
					finally {
						process().resume();
					}
				}))
				.satisfies((ex) -> assertThat(ex.getReason()).isEqualTo(LostLock.Reason.STORE_UNREACHABLE));
			assertThat(qty(jdbc)).isEqualTo(10);
			// Redis expires the key by its own clock: the holder's deadline, counted from when it sent its last
			// renewal, comes up to a round trip sooner, so the key may outlive the report by that much, never more.
			assertThat(keyGoneWithin(LOCK, Duration.ofMillis(LEASE_MILLIS))).as("nothing left behind").isTrue();
		});
	}

	@Test
	void aRedisRestartedWithoutPersistenceIsALossAndTokensKeepGrowing() {
		this.runner.run((context) -> {
			JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
			stock(jdbc, 10);
			AtomicLong lostToken = new AtomicLong();
			assertThatExceptionOfType(LockLostException.class)
				.isThrownBy(() -> context.getBean(StockService.class).takeAcrossARestart("apple", () -> {
					lostToken.set(LockContext.current().token());
					long stopped = System.nanoTime();
					process().restart();
					Duration away = Duration.ofNanos(System.nanoTime() - stopped);
					assertThat(away).as("Redis away for less than the two thirds of a lease a renewal leaves")
						.isLessThan(Duration.ofMillis(RESTART_LEASE_MILLIS * 2 / 3));
					assertThat(awaitLossUnchecked(Duration.ofMillis(RESTART_LEASE_MILLIS)).reason())
						.isEqualTo(LostLock.Reason.NOT_OWNED);
				}));
			assertThat(qty(jdbc)).isEqualTo(10);
			long nextToken = context.getBean(StockService.class).take("apple", () -> {
			});
			assertThat(nextToken).isGreaterThan(lostToken.get());
			assertThat(qty(jdbc)).isEqualTo(9);
		});
	}

	@Test
	void interruptStopsTheMethodAsSoonAsTheLossIsFound() {
		this.runner.run((context) -> {
			CountDownLatch started = new CountDownLatch(1);
			Future<?> call = this.executor.submit(() -> {
				context.getBean(StockService.class).waitInterruptibly("apple", started);
				return null;
			});
			assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
			long deleted = System.nanoTime();
			deleteLockKey();
			assertThatExceptionOfType(java.util.concurrent.ExecutionException.class)
				.isThrownBy(() -> call.get(REPORT_WAIT.toMillis(), TimeUnit.MILLISECONDS))
				.havingCause()
				.isInstanceOfSatisfying(LockLostException.class,
						(ex) -> assertThat(ex.getReason()).isEqualTo(LostLock.Reason.NOT_OWNED));
			assertThat(Duration.ofNanos(System.nanoTime() - deleted)).as("found by a renewal, within the lease")
				.isLessThan(Duration.ofMillis(LEASE_MILLIS));
		});
	}

	@Test
	void ignoreReportsTheLossAndLetsTheWorkStand() {
		this.runner.run((context) -> {
			JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
			stock(jdbc, 10);
			context.getBean(StockService.class).takeIdempotently("apple", () -> {
				deleteLockKey();
				assertThat(awaitLossUnchecked(REPORT_WAIT).reason()).isEqualTo(LostLock.Reason.NOT_OWNED);
			});
			assertThat(qty(jdbc)).isEqualTo(9);
		});
	}

	private static RedisServer process() {
		return redis.server();
	}

	private static boolean keyGoneWithin(String key, Duration within) throws InterruptedException {
		long deadline = System.nanoTime() + within.toNanos();
		while (RedisKeys.exists(redis, key)) {
			if (System.nanoTime() > deadline) {
				return false;
			}
			Thread.sleep(5);
		}
		return true;
	}

	private static LostLock awaitLossUnchecked(Duration within) {
		try {
			return awaitLoss(within);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

}
