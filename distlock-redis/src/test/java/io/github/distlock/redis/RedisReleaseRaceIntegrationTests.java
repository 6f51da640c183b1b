package io.github.distlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.redisson.api.RScript.ReturnType;
import org.redisson.api.RedissonClient;

import io.github.distlock.LostLock;
import io.github.distlock.engine.LockHandle;
import io.github.distlock.engine.LockRequest;
import io.github.distlock.fixtures.redis.RedisExtension;
import io.github.distlock.fixtures.redis.RespClient;

import static org.assertj.core.api.Assertions.assertThat;
import io.github.distlock.fixtures.redis.RedisTestClients;

/**
 * A release that overlaps a renewal on its way must not be reported as a lost lock: the renewal reaches Redis after
 * the release, finds the lock gone and answers "not ours", which is the release's doing, not a loss.
 */
class RedisReleaseRaceIntegrationTests {

	@RegisterExtension
	static final RedisExtension redis = RedisExtension.anyServer();

	private final BlockingQueue<LostLock> lost = new LinkedBlockingQueue<>();

	private final List<RedissonClient> clients = new ArrayList<>();

	private final List<RedisLockEngine> engines = new ArrayList<>();

	@AfterEach
	void stop() {
		this.engines.forEach(RedisLockEngine::close);
		this.clients.forEach((client) -> client.shutdown(0, 2, TimeUnit.SECONDS));
	}

	private RedissonClient client() {
		RedissonClient client = RedisTestClients.create(redis.server(), Duration.ofSeconds(3));
		this.clients.add(client);
		return client;
	}

	/** When each loss was reported, by token. */
	private final Map<Long, Long> reportedAt = new ConcurrentHashMap<>();

	private RedisLockEngine engine(LockScripts scripts, RedissonClient client) {
		RedisLockEngine engine = new RedisLockEngine(scripts, client, "distlock", (loss) -> {
			this.reportedAt.put(loss.token(), System.nanoTime());
			this.lost.add(loss);
		}, RedisLockEngine.DEFAULT_MAX_POLL);
		this.engines.add(engine);
		return engine;
	}

	@Test
	void aRenewalThatReachesRedisAfterTheReleaseIsNotALoss() throws Exception {
		RedissonClient client = client();
		OrderedScripts scripts = new OrderedScripts(client);
		RedisLockEngine engine = engine(scripts, client);
		LockHandle handle = engine.acquire(new LockRequest("race", "k", Duration.ofMillis(300), Duration.ZERO, true,
				null));
		scripts.armed.set(true);
		assertThat(scripts.renewalStarted.await(10, TimeUnit.SECONDS)).as("the watchdog renews").isTrue();

		// The release runs in Redis; its reply is held until the renewal, sent after it, has been answered and
		// settled by the watchdog.
		assertThat(handle.release()).as("released, not lost").isTrue();

		assertThat(List.copyOf(scripts.renewalAnswer)).as("the renewal found the lock already released")
			.isEqualTo(List.of(0L));
		assertThat(this.lost).isEmpty();
		assertThat(handle.isLost()).isFalse();
		assertThat(engine.statistics().lost()).isZero();
	}

	/**
	 * A renewal Redis performs but whose answer comes after the holder's deadline: the lock is lost then (nothing
	 * confirmed it), and the key that renewal kept alive for another lease is removed at once, owner-checked, instead of
	 * blocking every other instance until it expires, with a holder that will never release it.
	 */
	@Test
	void aRenewalAnsweredAfterTheDeadlineLeavesNoKeyBehind() throws Exception {
		Duration lease = Duration.ofSeconds(3);
		RedissonClient client = client();
		LateRenewalAnswers scripts = new LateRenewalAnswers(client, lease);
		RedisLockEngine engine = engine(scripts, client);
		LockHandle handle = engine.acquire(new LockRequest("race", "late", lease, Duration.ZERO, true, null));
		String lockKey = new RedisLockKeys("distlock").lockKey("race", "late");
		LostLock loss = this.lost.poll(lease.multipliedBy(2).toMillis(), TimeUnit.MILLISECONDS);
		assertThat(loss).as("the loss, at the deadline").isNotNull();
		assertThat(loss.reason()).isEqualTo(LostLock.Reason.STORE_UNREACHABLE);
		long lostAt = System.nanoTime();
		long renewedUntil = scripts.renewedAt + lease.toNanos();
		// The renewal ran in Redis a third of the lease in: its key would live on past the loss by that much.
		assertThat(renewedUntil - lostAt).as("what the late renewal left of the key's life")
			.isGreaterThan(lease.toNanos() / 6);
		try (RespClient raw = redis.client()) {
			while (raw.get(lockKey) != null && System.nanoTime() - renewedUntil < 0) {
				// Polling Redis: the removal is sent without waiting for its answer.
				Thread.sleep(5);
			}
			assertThat(raw.get(lockKey)).as("the key, once the loss was reported").isNull();
			assertThat(System.nanoTime()).as("removed before the late renewal would have let it expire")
				.isLessThan(renewedUntil);
		}
		assertThat(handle.release()).isFalse();
		assertThat(this.lost).as("reported once").isEmpty();
	}

	/**
	 * Releases race renewals on a CPU starved by busy threads, with a 90 ms lease. A renewal that finds the lock gone
	 * because the release ran first must never be reported ({@code NOT_OWNED} only where Redis itself let the lock
	 * expire). A renewal whose answer the starved JVM takes longer than the rest of the lease to hear leaves the lock
	 * unconfirmed at its deadline: that is a loss by the holder's clock ({@code STORE_UNREACHABLE}), and must never
	 * come before that deadline.
	 */
	@Test
	void releasesRacingRenewalsOnAStarvedCpuAreNeverReportedAsLosses() throws Exception {
		RedisLockEngine engine = engine(new LockScripts(client(), null), this.clients.get(0));
		ExpiryRecorder expiries = new ExpiryRecorder();
		int threads = 8;
		int callsPerThread = 200;
		AtomicBoolean starving = new AtomicBoolean(true);
		ExecutorService executor = Executors.newCachedThreadPool();
		AtomicInteger releasedFalse = new AtomicInteger();
		Map<Long, LockHandle> handles = new ConcurrentHashMap<>();
		try {
			expiries.start(executor);
			for (int i = 0; i < 2 * Runtime.getRuntime().availableProcessors(); i++) {
				executor.submit(() -> {
					long spins = 0;
					while (starving.get()) {
						spins++;
					}
					return spins;
				});
			}
			List<Future<?>> workers = new ArrayList<>();
			for (int t = 0; t < threads; t++) {
				String key = "t" + t;
				workers.add(executor.submit(() -> {
					for (int call = 0; call < callsPerThread; call++) {
						// Lease 90 ms: the watchdog renews every 30 ms, so renewals are often on their way.
						LockHandle handle = engine.acquire(new LockRequest("stress", key, Duration.ofMillis(90),
								Duration.ofSeconds(5), true, null));
						handles.put(handle.token(), handle);
						busyFor(ThreadLocalRandom.current().nextLong(TimeUnit.MILLISECONDS.toNanos(3)));
						if (!handle.release()) {
							releasedFalse.incrementAndGet();
						}
					}
					return null;
				}));
			}
			for (Future<?> worker : workers) {
				worker.get(120, TimeUnit.SECONDS);
			}
		}
		finally {
			starving.set(false);
			expiries.close();
			executor.shutdownNow();
			executor.awaitTermination(10, TimeUnit.SECONDS);
		}
		// "Not ours" is real only if Redis let the lock expire: these keys are touched by no one else.
		List<LostLock> unjustified = this.lost.stream()
			.filter((loss) -> loss.reason() == LostLock.Reason.NOT_OWNED)
			.filter((loss) -> !expiries.expiredKeys.contains(new RedisLockKeys("distlock").lockKey("stress",
					loss.key())))
			.toList();
		assertThat(unjustified).as("'not ours' reported although Redis never let the lock go (%d calls, %d losses)",
				threads * callsPerThread, this.lost.size()).isEmpty();
		for (LostLock loss : this.lost) {
			assertThat(loss.reason()).as(loss.toString()).isIn(LostLock.Reason.NOT_OWNED,
					LostLock.Reason.STORE_UNREACHABLE);
			if (loss.reason() == LostLock.Reason.STORE_UNREACHABLE) {
				assertThat(this.reportedAt.get(loss.token()) - handles.get(loss.token()).leaseDeadlineNanos())
					.as("how long after its deadline the unconfirmed %s was reported", loss)
					.isNotNegative();
			}
		}
		assertThat(releasedFalse.get()).as("releases that found the lock gone").isEqualTo(this.lost.size());
	}

	private static void busyFor(long nanos) {
		long end = System.nanoTime() + nanos;
		while (System.nanoTime() - end < 0) {
			Thread.onSpinWait();
		}
	}

	/** Records every lock key of the stress test that Redis let expire, from keyspace notifications. */
	private static final class ExpiryRecorder implements AutoCloseable {

		final Set<String> expiredKeys = ConcurrentHashMap.newKeySet();

		private final RespClient subscriber = new RespClient(redis.host(), redis.port(), Duration.ZERO);

		void start(ExecutorService executor) {
			this.subscriber.call("PSUBSCRIBE", "__keyspace@0__:distlock:{stress:*");
			executor.submit(() -> {
				while (true) {
					List<?> message = (List<?>) this.subscriber.readReply();
					if ("expired".equals(message.get(3))) {
						this.expiredKeys.add(((String) message.get(2)).substring("__keyspace@0__:".length()));
					}
				}
			});
		}

		@Override
		public void close() {
			this.subscriber.close();
		}

	}

	/** Runs every renewal in Redis at once, and hands its answer back a whole lease later. */
	private static final class LateRenewalAnswers extends LockScripts {

		private final Duration delay;

		volatile long renewedAt;

		LateRenewalAnswers(RedissonClient client, Duration delay) {
			super(client, null);
			this.delay = delay;
		}

		@Override
		<R> CompletionStage<R> runByShaAsync(Script lua, ReturnType returnType, List<Object> keys, Object... args) {
			if (lua != RENEW) {
				return super.runByShaAsync(lua, returnType, keys, args);
			}
			this.renewedAt = System.nanoTime();
			return super.<R>runByShaAsync(lua, returnType, keys, args)
				.thenApplyAsync((answer) -> answer,
						CompletableFuture.delayedExecutor(this.delay.toMillis(), TimeUnit.MILLISECONDS));
		}

	}

	/**
	 * Puts one renewal and one release in the order that raised false alarms: the release runs in Redis, then the
	 * renewal reaches Redis and is answered and settled, and only then does the release's reply reach its caller.
	 */
	private static final class OrderedScripts extends LockScripts {

		final AtomicBoolean armed = new AtomicBoolean();

		final CountDownLatch renewalStarted = new CountDownLatch(1);

		private final CountDownLatch releaseRan = new CountDownLatch(1);

		private final CountDownLatch renewalAnswered = new CountDownLatch(1);

		volatile List<?> renewalAnswer;

		private volatile Thread watchdog;

		OrderedScripts(RedissonClient client) {
			super(client, null);
		}

		@Override
		<R> R run(Script lua, ReturnType returnType, List<Object> keys, Object... args) {
			R result = super.run(lua, returnType, keys, args);
			if (lua == RELEASE && this.armed.get()) {
				this.releaseRan.countDown();
				await(this.renewalAnswered);
				awaitIdle(this.watchdog);
			}
			return result;
		}

		@Override
		<R> CompletionStage<R> runByShaAsync(Script lua, ReturnType returnType, List<Object> keys, Object... args) {
			if (lua != RENEW || !this.armed.get() || this.renewalStarted.getCount() == 0) {
				return super.runByShaAsync(lua, returnType, keys, args);
			}
			this.watchdog = Thread.currentThread();
			this.renewalStarted.countDown();
			await(this.releaseRan);
			R answer = super.<R>runByShaAsync(lua, returnType, keys, args).toCompletableFuture().join();
			this.renewalAnswer = (List<?>) answer;
			this.renewalAnswered.countDown();
			return CompletableFuture.completedFuture(answer);
		}

		private static void await(CountDownLatch latch) {
			try {
				assertThat(latch.await(10, TimeUnit.SECONDS)).isTrue();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException(ex);
			}
		}

		/** Waits until the watchdog thread has settled its renewal and parked for its next tick. */
		private static void awaitIdle(Thread thread) {
			long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
			while (thread.getState() != Thread.State.WAITING && thread.getState() != Thread.State.TIMED_WAITING) {
				assertThat(System.nanoTime()).as("the watchdog settles its renewal").isLessThan(deadline);
				Thread.onSpinWait();
			}
		}

	}

}
