package io.github.distlock.autoconfigure;

import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import io.micrometer.context.ContextExecutorService;
import io.micrometer.context.ContextSnapshotFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.task.support.ContextPropagatingTaskDecorator;
import org.springframework.scheduling.concurrent.ThreadPoolTaskExecutor;

import io.github.distlock.DistributedLock;
import io.github.distlock.LockAcquisitionException;
import io.github.distlock.LockContext;
import io.github.distlock.LockLostException;
import io.github.distlock.LockLostListener;
import io.github.distlock.LostLock;
import io.github.distlock.OnLost;
import io.github.distlock.fixtures.redis.RedisExtension;
import io.github.distlock.fixtures.redis.RespClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * {@code @DistributedLock} methods that return a {@link CompletionStage} or {@link CompletableFuture} hold the lock
 * until the stage completes, on a real redis-server with two application instances. Each test hands the method a
 * future it completes itself, so "while the work runs" is exact.
 */
class CompletionStageLockIntegrationTests {

	@RegisterExtension
	static final RedisExtension redis = RedisExtension.anyServer();

	private static final String LOCK = "distlock:{stage:1}";

	private static final long LEASE_MILLIS = 600;

	static final BlockingQueue<LostLock> losses = new LinkedBlockingQueue<>();

	private final ApplicationContextRunner runner = LockContexts.onRedis(redis)
		.withUserConfiguration(Beans.class);

	private ExecutorService executor;

	@BeforeEach
	void setUp() {
		losses.clear();
		this.executor = Executors.newCachedThreadPool();
	}

	@AfterEach
	void tearDown() throws InterruptedException {
		this.executor.shutdownNow();
		assertThat(this.executor.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
	}

	@Configuration(proxyBeanMethods = false)
	static class Beans {

		@Bean
		StageService stageService() {
			return new StageService();
		}

		@Bean
		LockLostListener recordingListener() {
			return losses::add;
		}

	}

	public static class StageService {

		@DistributedLock(key = "#id", name = "stage")
		public CompletableFuture<String> future(String id, CompletableFuture<String> work) {
			return work;
		}

		/** Starts its work only once it runs, so inside the lock. */
		@DistributedLock(key = "#id", name = "stage")
		public CompletableFuture<String> starting(String id, Supplier<CompletableFuture<String>> start) {
			return start.get();
		}

		@DistributedLock(key = "#id", name = "stage")
		public CompletionStage<String> stage(String id, CompletionStage<String> work) {
			return work;
		}

		@DistributedLock(key = "#id", name = "stage", lease = "600ms")
		public CompletableFuture<String> rollbackOnLoss(String id, CompletableFuture<String> work) {
			return work;
		}

		@DistributedLock(key = "#id", name = "stage", lease = "600ms", onLost = OnLost.INTERRUPT)
		public CompletableFuture<String> interruptOnLoss(String id, CompletableFuture<String> work) {
			return work;
		}

		@DistributedLock(key = "#id", name = "stage", lease = "600ms", onLost = OnLost.IGNORE)
		public CompletableFuture<String> ignoreLoss(String id, CompletableFuture<String> work) {
			return work;
		}

		/** Token and lock seen by the method's synchronous part. */
		@DistributedLock(key = "#id", name = "stage")
		public CompletableFuture<Long> tokenSeenWhileStarting(String id) {
			return CompletableFuture.completedFuture(LockContext.current().token());
		}

		@DistributedLock(key = "#id", name = "stage")
		public CompletableFuture<String> failsBeforeReturningAStage(String id) {
			throw new IllegalArgumentException("no such order " + id);
		}

		@DistributedLock(key = "#id", name = "stage")
		public CompletableFuture<String> returnsNull(String id) {
			return null;
		}

		@DistributedLock(key = "#id", name = "stage", waitTime = "0s")
		public String tryNow(String id) {
			return "acquired";
		}

	}

	private static String tryNow(StageService service) {
		try {
			return service.tryNow("1");
		}
		catch (LockAcquisitionException ex) {
			return "refused";
		}
	}

	@Test
	void theLockIsHeldUntilTheStageCompletesAndReleasedBeforeTheCallerSeesIt() {
		this.runner.run((first) -> this.runner.run((second) -> {
			StageService service = first.getBean(StageService.class);
			StageService otherInstance = second.getBean(StageService.class);
			CompletableFuture<String> work = new CompletableFuture<>();
			CompletableFuture<String> result = service.future("1", work);
			CompletableFuture<String> seenByCaller = result
				.thenApply((value) -> value + ", held " + RedisKeys.exists(redis, LOCK));
			assertThat(result).isNotSameAs(work).isNotDone();
			assertThat(LockContext.find()).as("the calling thread has left the lock").isEmpty();
			assertThat(RedisKeys.exists(redis, LOCK)).isTrue();
			assertThat(tryNow(otherInstance)).isEqualTo("refused");
			assertThat(tryNow(service)).as("nor does the calling thread re-enter it").isEqualTo("refused");
			this.executor.execute(() -> work.complete("done"));
			assertThat(seenByCaller.get(10, TimeUnit.SECONDS)).isEqualTo("done, held false");
			assertThat(tryNow(otherInstance)).isEqualTo("acquired");
		}));
	}

	@Test
	void aCompletionStageReturnTypeWorksTheSame() {
		this.runner.run((first) -> this.runner.run((second) -> {
			CompletableFuture<String> work = new CompletableFuture<>();
			CompletionStage<String> result = first.getBean(StageService.class).stage("1", work.minimalCompletionStage());
			assertThat(tryNow(second.getBean(StageService.class))).isEqualTo("refused");
			work.complete("done");
			assertThat(result.toCompletableFuture().get(10, TimeUnit.SECONDS)).isEqualTo("done");
			assertThat(tryNow(second.getBean(StageService.class))).isEqualTo("acquired");
		}));
	}

	@Test
	void anExceptionalCompletionReleasesTheLockAndCarriesTheOriginalException() {
		this.runner.run((first) -> this.runner.run((second) -> {
			CompletableFuture<String> work = new CompletableFuture<>();
			CompletableFuture<String> result = first.getBean(StageService.class).future("1", work);
			assertThat(tryNow(second.getBean(StageService.class))).isEqualTo("refused");
			IllegalStateException failure = new IllegalStateException("payment declined");
			work.completeExceptionally(failure);
			assertThatExceptionOfType(ExecutionException.class).isThrownBy(() -> result.get(10, TimeUnit.SECONDS))
				.havingCause()
				.isSameAs(failure);
			assertThat(failure.getSuppressed()).isEmpty();
			assertThat(RedisKeys.exists(redis, LOCK)).isFalse();
			assertThat(tryNow(second.getBean(StageService.class))).isEqualTo("acquired");
		}));
	}

	@Test
	void theMethodSeesItsLockWhileItStartsTheWork() {
		this.runner.run((context) -> {
			long token = context.getBean(StageService.class).tokenSeenWhileStarting("1").get(10, TimeUnit.SECONDS);
			assertThat(token).isPositive();
			assertThat(RedisKeys.exists(redis, LOCK)).isFalse();
		});
	}

	@Test
	void aMethodThatThrowsBeforeReturningAStageOrReturnsNullReleasesAtOnce() {
		this.runner.run((context) -> {
			StageService service = context.getBean(StageService.class);
			assertThatExceptionOfType(IllegalArgumentException.class)
				.isThrownBy(() -> service.failsBeforeReturningAStage("1"))
				.withMessage("no such order 1");
			assertThat(RedisKeys.exists(redis, LOCK)).isFalse();
			assertThat(service.returnsNull("1")).isNull();
			assertThat(RedisKeys.exists(redis, LOCK)).isFalse();
		});
	}

	@Test
	void aLockLostBeforeTheStageCompletesFailsTheStageWithLockLostException() {
		this.runner.run((context) -> {
			CompletableFuture<String> work = new CompletableFuture<>();
			CompletableFuture<String> result = context.getBean(StageService.class).rollbackOnLoss("1", work);
			deleteLock();
			assertThat(awaitLoss().reason()).isEqualTo(LostLock.Reason.NOT_OWNED);
			assertThat(result).as("the work still runs").isNotDone();
			work.complete("done");
			assertThatExceptionOfType(ExecutionException.class).isThrownBy(() -> result.get(10, TimeUnit.SECONDS))
				.havingCause()
				.isInstanceOfSatisfying(LockLostException.class, (ex) -> {
					assertThat(ex.getLockName()).isEqualTo("stage");
					assertThat(ex.getLockKey()).isEqualTo("1");
					assertThat(ex.getReason()).isEqualTo(LostLock.Reason.NOT_OWNED);
				});
		});
	}

	@Test
	void interruptCancelsTheWorksStageAsSoonAsTheLossIsFound() {
		this.runner.run((context) -> {
			CompletableFuture<String> work = new CompletableFuture<>();
			CompletableFuture<String> result = context.getBean(StageService.class).interruptOnLoss("1", work);
			long deleted = System.nanoTime();
			deleteLock();
			assertThatExceptionOfType(ExecutionException.class).isThrownBy(() -> result.get(10, TimeUnit.SECONDS))
				.havingCause()
				.isInstanceOfSatisfying(LockLostException.class, (ex) -> {
					assertThat(ex.getReason()).isEqualTo(LostLock.Reason.NOT_OWNED);
					assertThat(ex.getSuppressed()).singleElement().isInstanceOf(CancellationException.class);
				});
			assertThat(work).isCancelled();
			assertThat(Duration.ofNanos(System.nanoTime() - deleted))
				.as("found by a renewal, before the lease could have run out")
				.isLessThan(Duration.ofMillis(LEASE_MILLIS));
		});
	}

	@Test
	void ignoreLetsTheResultStand() {
		this.runner.run((context) -> {
			CompletableFuture<String> work = new CompletableFuture<>();
			CompletableFuture<String> result = context.getBean(StageService.class).ignoreLoss("1", work);
			deleteLock();
			awaitLoss();
			work.complete("done");
			assertThat(result.get(10, TimeUnit.SECONDS)).isEqualTo("done");
		});
	}

	@Test
	void cancellingTheReturnedStageNeitherStopsTheWorkNorReleasesTheLockBeforeTheWorkEnds() {
		this.runner.run((first) -> this.runner.run((second) -> {
			CompletableFuture<String> work = new CompletableFuture<>();
			CompletableFuture<String> result = first.getBean(StageService.class).future("1", work);
			assertThat(result.cancel(true)).isTrue();
			assertThat(work).isNotDone();
			assertThat(RedisKeys.exists(redis, LOCK)).isTrue();
			assertThat(tryNow(second.getBean(StageService.class))).isEqualTo("refused");
			// Completing the work runs the release on this thread, before complete() returns.
			work.complete("done");
			assertThat(RedisKeys.exists(redis, LOCK)).isFalse();
			assertThat(tryNow(second.getBean(StageService.class))).isEqualTo("acquired");
		}));
	}

	@Test
	void workOnAnotherThreadIsNotInsideTheLockSoALockedCallThereForTheSameKeyFails() {
		this.runner.run((context) -> {
			StageService service = context.getBean(StageService.class);
			CompletableFuture<String> result = service.starting("1",
					() -> CompletableFuture.supplyAsync(() -> service.tryNow("1"), this.executor));
			assertThatExceptionOfType(ExecutionException.class).isThrownBy(() -> result.get(10, TimeUnit.SECONDS))
				.havingCause()
				.isInstanceOf(LockAcquisitionException.class);
			assertThat(RedisKeys.locks(redis)).isEmpty();
		});
	}

	@Test
	void workOnAnExecutorThatPropagatesContextRunsInsideTheLock() {
		ExecutorService propagating = ContextExecutorService.wrap(this.executor,
				ContextSnapshotFactory.builder().build());
		this.runner.run((context) -> {
			StageService service = context.getBean(StageService.class);
			CompletableFuture<String> result = service.starting("1", () -> {
				long outer = LockContext.current().token();
				return CompletableFuture.supplyAsync(() -> service.tryNow("1") + ", same lock "
						+ (LockContext.current().token() == outer), propagating);
			});
			assertThat(result.get(10, TimeUnit.SECONDS)).isEqualTo("acquired, same lock true");
			// The task let go of its claim after it completed the stage, so the release may come a moment later.
			await().atMost(Duration.ofSeconds(10)).until(() -> RedisKeys.locks(redis).isEmpty());
		});
	}

	@Test
	void workPropagatedFromALockedMethodKeepsTheLockUntilItEnds() {
		ThreadPoolTaskExecutor propagating = new ThreadPoolTaskExecutor();
		propagating.setTaskDecorator(new ContextPropagatingTaskDecorator());
		propagating.initialize();
		try {
			this.runner.run((first) -> this.runner.run((second) -> {
				StageService service = first.getBean(StageService.class);
				CountDownLatch started = new CountDownLatch(1);
				CountDownLatch finish = new CountDownLatch(1);
				CompletableFuture<Void> background = new CompletableFuture<>();
				// The method's stage completes once the work has started; the work goes on running on the executor.
				CompletableFuture<String> result = service.starting("1", () -> {
					propagating.execute(() -> {
						started.countDown();
						try {
							finish.await();
							background.complete(null);
						}
						catch (InterruptedException ex) {
							background.completeExceptionally(ex);
						}
					});
					try {
						return CompletableFuture.completedFuture(started.await(10, TimeUnit.SECONDS) ? "started" : "late");
					}
					catch (InterruptedException ex) {
						return CompletableFuture.failedFuture(ex);
					}
				});
				assertThat(result.get(10, TimeUnit.SECONDS)).isEqualTo("started");
				assertThat(tryNow(second.getBean(StageService.class))).as("held for the work still running")
					.isEqualTo("refused");
				finish.countDown();
				background.get(10, TimeUnit.SECONDS);
				await().atMost(Duration.ofSeconds(10)).until(() -> !RedisKeys.exists(redis, LOCK));
				assertThat(tryNow(second.getBean(StageService.class))).isEqualTo("acquired");
			}));
		}
		finally {
			propagating.shutdown();
		}
	}

	private static void deleteLock() {
		try (RespClient client = redis.client()) {
			assertThat(client.call("DEL", LOCK)).isEqualTo(1L);
		}
	}

	private static LostLock awaitLoss() throws InterruptedException {
		// A wait, not a bound: how soon is checked against the lease where it matters.
		LostLock loss = losses.poll(10, TimeUnit.SECONDS);
		assertThat(loss).as("a loss reported").isNotNull();
		return loss;
	}

}
