package io.github.distlock.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import io.github.distlock.DistributedLock;
import io.github.distlock.DistributedLockTemplate;
import io.github.distlock.LockAcquisitionException;
import io.github.distlock.LockContext;
import io.github.distlock.LockLostListener;
import io.github.distlock.LockMode;
import io.github.distlock.LockSpec;
import io.github.distlock.LockUpgradeException;
import io.github.distlock.LostLock;
import io.github.distlock.fixtures.redis.RedisExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Read/write locks and permits from the annotation, on a real redis-server with two application contexts: a history
 * of concurrent readers and writers checked for exclusion, writers served while readers keep coming, a writer that
 * reads inside its lock, a reader refused the write lock, permits that never admit more concurrent holders than
 * their number (a placeholder) across both contexts, and the template taking the same locks.
 */
class SharedLockIntegrationTests {

	@RegisterExtension
	static final RedisExtension redis = RedisExtension.anyServer();

	/** Calls inside the read/write lock now, by side; a writer must be alone, readers may share. */
	static final AtomicInteger readersInside = new AtomicInteger();

	static final AtomicInteger writersInside = new AtomicInteger();

	static final AtomicInteger violations = new AtomicInteger();

	static final AtomicInteger mostReaders = new AtomicInteger();

	/** Calls holding a permit now, and the most seen at once. */
	static final AtomicInteger permitHolders = new AtomicInteger();

	static final AtomicInteger mostPermitHolders = new AtomicInteger();

	static final BlockingQueue<LostLock> losses = new LinkedBlockingQueue<>();

	private final ApplicationContextRunner runner = LockContexts.onRedis(redis)
		.withUserConfiguration(Beans.class)
		.withPropertyValues("report.permits=3");

	private ExecutorService executor;

	@BeforeEach
	void setUp() {
		readersInside.set(0);
		writersInside.set(0);
		violations.set(0);
		mostReaders.set(0);
		permitHolders.set(0);
		mostPermitHolders.set(0);
		losses.clear();
		this.executor = Executors.newCachedThreadPool();
	}

	@AfterEach
	void tearDown() throws InterruptedException {
		this.executor.shutdownNow();
		this.executor.awaitTermination(10, TimeUnit.SECONDS);
		assertThat(losses).as("no lock reported lost").isEmpty();
		assertThat(RedisKeys.removeLeftOver(redis)).as("lock keys left by the test").isEmpty();
	}

	@Configuration(proxyBeanMethods = false)
	static class Beans {

		@Bean
		Catalog catalog() {
			return new Catalog();
		}

		@Bean
		Reports reports() {
			return new Reports();
		}

		@Bean
		LockLostListener recordingListener() {
			return losses::add;
		}

	}

	public static class Catalog {

		@DistributedLock(name = "catalog", key = "#id", mode = LockMode.READ, waitTime = "60s")
		public long read(String id) throws InterruptedException {
			int now = readersInside.incrementAndGet();
			mostReaders.accumulateAndGet(now, Math::max);
			if (writersInside.get() != 0) {
				violations.incrementAndGet();
			}
			Thread.sleep(1);
			readersInside.decrementAndGet();
			return LockContext.current().token();
		}

		@DistributedLock(name = "catalog", key = "#id", mode = LockMode.WRITE, waitTime = "60s")
		public long write(String id) {
			if (writersInside.incrementAndGet() != 1 || readersInside.get() != 0) {
				violations.incrementAndGet();
			}
			Thread.yield();
			writersInside.decrementAndGet();
			return LockContext.current().token();
		}

		/** A writer that reads inside its write lock: the read enters it. */
		@DistributedLock(name = "catalog", key = "#id", mode = LockMode.WRITE, waitTime = "0s")
		public List<Long> writeThenRead(String id, Catalog self) throws InterruptedException {
			long writeToken = LockContext.current().token();
			return List.of(writeToken, self.readToken(id));
		}

		@DistributedLock(name = "catalog", key = "#id", mode = LockMode.READ, waitTime = "0s")
		public long readToken(String id) {
			return LockContext.current().token();
		}

		/** A reader that asks for the write lock inside its read lock. */
		@DistributedLock(name = "catalog", key = "#id", mode = LockMode.READ, waitTime = "0s")
		public void readThenWrite(String id, Catalog self) {
			self.writeAtOnce(id);
		}

		@DistributedLock(name = "catalog", key = "#id", mode = LockMode.WRITE, waitTime = "0s")
		public void writeAtOnce(String id) {
		}

		@DistributedLock(name = "catalog", key = "#id", mode = LockMode.READ, waitTime = "0s")
		public void holdRead(String id, CountDownLatch entered, CountDownLatch leave) throws InterruptedException {
			entered.countDown();
			leave.await(20, TimeUnit.SECONDS);
		}

	}

	public static class Reports {

		@DistributedLock(name = "reports", key = "'all'", permits = "${report.permits}", waitTime = "60s")
		public void render() throws InterruptedException {
			int now = permitHolders.incrementAndGet();
			mostPermitHolders.accumulateAndGet(now, Math::max);
			Thread.sleep(3);
			permitHolders.decrementAndGet();
		}

		/** Rejects at once when no permit is free. */
		@DistributedLock(name = "reports", key = "'all'", permits = "${report.permits}", waitTime = "0s")
		public void renderOrReject() {
		}

		@DistributedLock(name = "reports", key = "'all'", permits = "${report.permits}", waitTime = "0s")
		public int hold(CountDownLatch entered, CountDownLatch leave, Reports self) throws InterruptedException {
			entered.countDown();
			leave.await(20, TimeUnit.SECONDS);
			// A nested call for the same permits enters this one's permit rather than taking another.
			self.renderOrReject();
			return LockContext.current().permits();
		}

	}

	@Test
	void readersShareWritersExcludeAcrossTwoContextsAndWritersAreServedWhileReadersKeepComing() {
		this.runner.run((first) -> this.runner.run((second) -> {
			List<Catalog> catalogs = List.of(first.getBean(Catalog.class), second.getBean(Catalog.class));
			AtomicBoolean writersDone = new AtomicBoolean();
			AtomicLong longestWriterWait = new AtomicLong();
			List<Future<?>> readers = new ArrayList<>();
			List<Future<?>> writers = new ArrayList<>();
			for (Catalog catalog : catalogs) {
				for (int t = 0; t < 6; t++) {
					// Readers never pause: a lock that let new readers pass a waiting writer would starve it.
					readers.add(this.executor.submit(() -> {
						while (!writersDone.get()) {
							catalog.read("item-1");
						}
						return null;
					}));
				}
				for (int t = 0; t < 2; t++) {
					writers.add(this.executor.submit(() -> {
						for (int i = 0; i < 15; i++) {
							long start = System.nanoTime();
							catalog.write("item-1");
							longestWriterWait.accumulateAndGet(System.nanoTime() - start, Math::max);
						}
						return null;
					}));
				}
			}
			for (Future<?> writer : writers) {
				writer.get(120, TimeUnit.SECONDS);
			}
			writersDone.set(true);
			for (Future<?> reader : readers) {
				reader.get(30, TimeUnit.SECONDS);
			}
			assertThat(violations).as("a writer beside anyone, or a reader beside a writer").hasValue(0);
			assertThat(mostReaders.get()).as("readers shared the lock").isGreaterThan(1);
			assertThat(Duration.ofNanos(longestWriterWait.get()))
				.as("no writer waited long behind the stream of readers")
				.isLessThan(Duration.ofSeconds(10));
		}));
	}

	@Test
	void aWriterReadsInsideItsWriteLockAndAReaderIsRefusedTheWriteLock() {
		this.runner.run((context) -> {
			Catalog catalog = context.getBean(Catalog.class);
			List<Long> tokens = catalog.writeThenRead("item-2", catalog);
			assertThat(tokens.get(1)).as("the read entered the write lock").isEqualTo(tokens.get(0));

			assertThatExceptionOfType(LockUpgradeException.class)
				.isThrownBy(() -> catalog.readThenWrite("item-2", catalog))
				.withMessageContaining("held for reading")
				.withMessageContaining("'catalog'");
			// Refused at once and released: the write lock is free again.
			catalog.writeAtOnce("item-2");
		});
	}

	@Test
	void aHeldReadLockBlocksAWriterInTheOtherContextButNotAReader() {
		this.runner.run((first) -> this.runner.run((second) -> {
			CountDownLatch entered = new CountDownLatch(1);
			CountDownLatch leave = new CountDownLatch(1);
			Future<?> holder = this.executor.submit(() -> {
				first.getBean(Catalog.class).holdRead("item-3", entered, leave);
				return null;
			});
			assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
			Catalog other = second.getBean(Catalog.class);
			assertThat(other.readToken("item-3")).isPositive();
			assertThatExceptionOfType(LockAcquisitionException.class).isThrownBy(() -> other.writeAtOnce("item-3"));
			leave.countDown();
			holder.get(10, TimeUnit.SECONDS);
			other.writeAtOnce("item-3");
		}));
	}

	@Test
	void permitsNeverAdmitMoreConcurrentHoldersThanTheirNumberAcrossTwoContexts() {
		this.runner.run((first) -> this.runner.run((second) -> {
			List<Future<?>> workers = new ArrayList<>();
			for (Reports reports : List.of(first.getBean(Reports.class), second.getBean(Reports.class))) {
				for (int t = 0; t < 8; t++) {
					workers.add(this.executor.submit(() -> {
						for (int i = 0; i < 25; i++) {
							reports.render();
						}
						return null;
					}));
				}
			}
			for (Future<?> worker : workers) {
				worker.get(120, TimeUnit.SECONDS);
			}
			assertThat(mostPermitHolders.get()).as("at most report.permits = 3 at once, observed inside the method")
				.isLessThanOrEqualTo(3)
				.isGreaterThan(1);
		}));
	}

	@Test
	void whenEveryPermitIsTakenACallThatMayNotWaitIsRejectedAtOnce() {
		this.runner.run((first) -> this.runner.run((second) -> {
			Reports reports = first.getBean(Reports.class);
			CountDownLatch entered = new CountDownLatch(3);
			CountDownLatch leave = new CountDownLatch(1);
			List<Future<Integer>> holders = new ArrayList<>();
			for (int i = 0; i < 3; i++) {
				holders.add(this.executor.submit(() -> reports.hold(entered, leave, reports)));
			}
			assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
			assertThatExceptionOfType(LockAcquisitionException.class)
				.isThrownBy(() -> second.getBean(Reports.class).renderOrReject());
			leave.countDown();
			for (Future<Integer> holder : holders) {
				assertThat(holder.get(10, TimeUnit.SECONDS)).isEqualTo(3);
			}
			second.getBean(Reports.class).renderOrReject();
		}));
	}

	@Test
	void theTemplateTakesReadWriteLocksAndPermitsAsTheAnnotationDoes() {
		this.runner.run((first) -> this.runner.run((second) -> {
			DistributedLockTemplate template = first.getBean(DistributedLockTemplate.class);
			DistributedLockTemplate other = second.getBean(DistributedLockTemplate.class);
			LockSpec read = LockSpec.of("catalog", "item-4").withMode(LockMode.READ).withWaitTime(Duration.ZERO);
			LockSpec write = LockSpec.of("catalog", "item-4").withMode(LockMode.WRITE).withWaitTime(Duration.ZERO);
			template.execute(read, (context) -> {
				assertThat(context.mode()).isEqualTo(LockMode.READ);
				assertThat(other.tryExecute(read, (inner) -> "shared").result()).isEqualTo("shared");
				assertThat(other.tryExecute(write, (inner) -> "written").isAcquired()).isFalse();
				// The annotation's writer of the same name and key is the same write lock.
				assertThatExceptionOfType(LockAcquisitionException.class)
					.isThrownBy(() -> second.getBean(Catalog.class).writeAtOnce("item-4"));
				return null;
			});
			LockSpec permit = LockSpec.of("reports", "all").withPermits(1).withWaitTime(Duration.ZERO);
			template.execute(permit, (context) -> {
				assertThat(context.permits()).isEqualTo(1);
				assertThat(other.tryExecute(permit, (inner) -> "second").isAcquired()).isFalse();
				return null;
			});
			assertThatExceptionOfType(IllegalArgumentException.class)
				.isThrownBy(() -> LockSpec.of("reports", "all").withPermits(2).withMode(LockMode.READ));
		}));
	}

}
