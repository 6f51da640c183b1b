package io.github.distlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.redisson.api.RedissonClient;

import io.github.distlock.LockAcquisitionException;
import io.github.distlock.LostLock;
import io.github.distlock.engine.LockHandle;
import io.github.distlock.engine.LockRequest;
import io.github.distlock.fixtures.redis.RedisExtension;
import io.github.distlock.fixtures.redis.RedisTestClients;
import io.github.distlock.fixtures.redis.RespClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The waiter queue: a release hands the lock to the first live waiter, in the order they queued, across engines, at
 * no further cost to the waiter; waiters that give up, are interrupted or die leave no lasting trace.
 */
class RedisHandOverIntegrationTests {

	@RegisterExtension
	static final RedisExtension redis = RedisExtension.anyServer();

	private static final String LOCK = "distlock:{handover:k}";

	private static final String QUEUE = "distlock:{handover:k}:waiters";

	private final List<RedissonClient> clients = new ArrayList<>();

	private final List<RedisLockEngine> engines = new ArrayList<>();

	private final BlockingQueue<LostLock> lost = new LinkedBlockingQueue<>();

	private ExecutorService executor;

	@BeforeEach
	void start() {
		this.executor = Executors.newCachedThreadPool();
	}

	@AfterEach
	void stop() throws InterruptedException {
		this.executor.shutdownNow();
		this.executor.awaitTermination(10, TimeUnit.SECONDS);
		this.engines.forEach(RedisLockEngine::close);
		this.clients.forEach((client) -> client.shutdown(0, 2, TimeUnit.SECONDS));
		assertThat(this.lost).isEmpty();
	}

	/**
	 * An engine whose waiters poll only every 30 s (a third of a request's 30 s lease, 10 s, at the most), so that a
	 * hand-over not announced would show.
	 */
	private RedisLockEngine engine() {
		return engine(Duration.ofSeconds(30));
	}

	private RedisLockEngine engine(Duration maxPoll) {
		RedissonClient client = RedisTestClients.create(redis.server(), Duration.ofSeconds(3));
		RedisLockEngine engine = new RedisLockEngine(client, "distlock", null, this.lost::add, maxPoll);
		this.clients.add(client);
		this.engines.add(engine);
		return engine;
	}

	private static LockRequest request(Duration wait) {
		return new LockRequest("handover", "k", Duration.ofSeconds(30), wait, true, null);
	}

	private static long queued() {
		try (RespClient client = redis.client()) {
			return (Long) client.call("ZCARD", QUEUE);
		}
	}

	private static void awaitQueued(long count) throws InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
		while (queued() != count) {
			assertThat(System.nanoTime()).as("%d waiters queued", count).isLessThan(deadline);
			Thread.sleep(5);
		}
	}

	@Test
	void waitersFromSeveralEnginesGetTheLockInTheOrderTheyQueued() throws Exception {
		// One waiter per engine: threads of one engine queue in Redis one at a time (see the turnstile test below).
		List<RedisLockEngine> engines = List.of(engine(), engine(), engine(), engine());
		LockHandle first = engines.get(0).acquire(request(Duration.ZERO));
		List<String> order = new CopyOnWriteArrayList<>();
		List<Future<?>> waiters = new ArrayList<>();
		for (int i = 1; i <= 4; i++) {
			String name = "waiter-" + i;
			RedisLockEngine engine = engines.get(i % engines.size());
			waiters.add(this.executor.submit(() -> {
				LockHandle handle = engine.acquire(request(Duration.ofSeconds(30)));
				order.add(name);
				assertThat(handle.release()).isTrue();
				return null;
			}));
			awaitQueued(i);
		}
		assertThatExceptionOfType(LockAcquisitionException.class)
			.as("a newcomer cannot cut in while others queue")
			.isThrownBy(() -> engines.get(2).acquire(request(Duration.ZERO)));
		assertThat(first.release()).isTrue();
		for (Future<?> waiter : waiters) {
			waiter.get(30, TimeUnit.SECONDS);
		}
		assertThat(order).containsExactly("waiter-1", "waiter-2", "waiter-3", "waiter-4");
		assertThat(RedisKeys.all()).isEmpty();
	}

	@Test
	void aHandOverCostsTheWaiterNoFurtherCall() throws Exception {
		RedisLockEngine holderEngine = engine();
		RedisLockEngine waiterEngine = engine();
		// Warm up, so that every script is in the server's cache and no call is repeated as EVAL.
		for (int i = 0; i < 2; i++) {
			LockHandle held = holderEngine.acquire(request(Duration.ZERO));
			Future<LockHandle> waiter = this.executor.submit(() -> waiterEngine.acquire(request(Duration.ofSeconds(30))));
			awaitQueued(1);
			long before = scriptCalls();
			held.release();
			LockHandle next = waiter.get(10, TimeUnit.SECONDS);
			long after = scriptCalls();
			next.release();
			if (i == 1) {
				assertThat(after - before).as("the holder's release alone, the hand-over included").isEqualTo(1);
			}
		}
	}

	private static long scriptCalls() {
		return calls("evalsha|eval");
	}

	/** Calls Redis has counted of the commands the pattern matches, scripts' own calls included. */
	private static long calls(String commands) {
		try (RespClient client = redis.client()) {
			return client.commandCalls(commands);
		}
	}

	@Test
	void aWaiterWhoseWaitRunsOutLeavesTheQueue() throws Exception {
		RedisLockEngine engine = engine();
		LockHandle held = engine.acquire(request(Duration.ZERO));
		assertThatExceptionOfType(LockAcquisitionException.class)
			.isThrownBy(() -> engine().acquire(request(Duration.ofMillis(300))));
		assertThat(queued()).isZero();
		assertThat(held.release()).isTrue();
		assertThat(RedisKeys.all()).isEmpty();
	}

	@Test
	void anInterruptedWaiterLeavesTheQueueAndHoldsNothing() throws Exception {
		RedisLockEngine engine = engine();
		LockHandle held = engine.acquire(request(Duration.ZERO));
		Future<LockHandle> waiter = this.executor.submit(() -> engine().acquire(request(Duration.ofSeconds(30))));
		awaitQueued(1);
		waiter.cancel(true);
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
		while (queued() != 0 && System.nanoTime() < deadline) {
			Thread.sleep(5);
		}
		assertThat(queued()).isZero();
		assertThat(held.release()).isTrue();
		assertThat(RedisKeys.all()).isEmpty();
	}

	/**
	 * A single try interrupted while its attempt is on its way: Redis, paused for writes, grants the free lock only
	 * after the interrupt. The caller hears InterruptedException and never gets the lock, so the lock it was granted
	 * is let go of, without a loss report. (The engine sends that release only once the attempt has answered; here
	 * the pause keeps the two in order anyway, so this shows the outcome, not the ordering.)
	 */
	@Test
	void aSingleTryInterruptedWhileItsAttemptIsUnansweredLeavesNoLockBehind() throws Exception {
		RedisLockEngine trying = engine();
		AtomicReference<Throwable> outcome = new AtomicReference<>();
		Thread caller;
		try (RespClient admin = redis.client()) {
			admin.call("CLIENT", "PAUSE", "10000", "WRITE");
			try {
				caller = new Thread(() -> {
					try {
						trying.acquire(request(Duration.ZERO)).release();
						outcome.set(new AssertionError("acquired"));
					}
					catch (Throwable ex) {
						outcome.set(ex);
					}
				});
				caller.start();
				awaitPausedClient(admin);
				caller.interrupt();
				// Unpaused only once the caller has seen the interrupt (it then waits, timed, for the attempt's
				// answer, or has ended): an answer that came first would be taken, the interrupt merely flagged.
				long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
				while (caller.getState() != Thread.State.TIMED_WAITING && caller.getState() != Thread.State.TERMINATED
						&& System.nanoTime() < deadline) {
					Thread.sleep(1);
				}
			}
			finally {
				admin.call("CLIENT", "UNPAUSE");
			}
		}
		caller.join(10_000);
		assertThat(outcome.get()).isInstanceOf(InterruptedException.class);
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
		try (RespClient client = redis.client()) {
			// The release is sent without waiting for its answer.
			while (client.get(LOCK) != null && System.nanoTime() < deadline) {
				Thread.sleep(5);
			}
			assertThat(client.get(LOCK)).as("the lock granted after the interrupt, let go of").isNull();
		}
		assertThat(this.lost).isEmpty();
		assertThat(RedisKeys.all()).isEmpty();
	}

	/**
	 * Interrupted while its first attempt is on its way: Redis, paused for writes, runs the script only after the
	 * interrupt, so the waiter never hears that it queued. Its withdrawal must still take it out of the queue, or the
	 * holder's release would hand the lock to a caller that has gone.
	 */
	@Test
	void aWaiterInterruptedWhileItsAttemptIsUnansweredLeavesTheQueueAndIsHandedNothing() throws Exception {
		LockHandle held = engine().acquire(request(Duration.ZERO));
		RedisLockEngine waiting = engine();
		CountDownLatch gaveUp = new CountDownLatch(1);
		Thread waiter;
		try (RespClient admin = redis.client()) {
			admin.call("CLIENT", "PAUSE", "10000", "WRITE");
			try {
				waiter = new Thread(() -> {
					try {
						waiting.acquire(request(Duration.ofSeconds(30))).release();
					}
					catch (Exception ex) {
						// Interrupted, as the test means it to be.
					}
					finally {
						gaveUp.countDown();
					}
				});
				waiter.start();
				awaitPausedClient(admin);
				waiter.interrupt();
			}
			finally {
				admin.call("CLIENT", "UNPAUSE");
			}
		}
		assertThat(gaveUp.await(10, TimeUnit.SECONDS)).as("the interrupted waiter returned").isTrue();
		awaitQueued(0);
		assertThat(held.release()).isTrue();
		try (RespClient client = redis.client()) {
			assertThat(client.get(LOCK)).as("the lock was handed to nobody").isNull();
		}
		assertThat(RedisKeys.all()).isEmpty();
	}

	/** Waits until a client's script is held back by CLIENT PAUSE (blocked, "flags=b", on EVALSHA). */
	private static void awaitPausedClient(RespClient admin) throws InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
		while (String.valueOf(admin.call("CLIENT", "LIST"))
			.lines()
			.noneMatch((client) -> client.contains(" flags=b ") && client.contains(" cmd=evalsha "))) {
			assertThat(System.nanoTime()).as("a client's script held back by the pause").isLessThan(deadline);
			Thread.sleep(5);
		}
	}

	/**
	 * A hand-over the waiter does not hear (its announcement lost, as when its subscription is killed) is found by its
	 * next attempt, which comes within a third of the lease the hand-over gives it, so the lock arrives with two
	 * thirds of its lease left, as a renewal leaves it. Polling by the holder's remaining lease alone, the waiter
	 * learned of it when its lease was all but over (a torture run on Redis, 1 s leases: lost 1 ms after arriving).
	 */
	@Test
	void aHandOverTheWaiterDoesNotHearArrivesWithTwoThirdsOfItsLeaseLeft() throws Exception {
		Duration lease = Duration.ofSeconds(3);
		LockHandle held = engine().acquire(new LockRequest("handover", "k", lease, Duration.ZERO, true, null));
		RedissonClient client = RedisTestClients.create(redis.server(), Duration.ofSeconds(3));
		this.clients.add(client);
		RedisLockEngine unhearing = RedisLockEngine.unhearing(client, "distlock", this.lost::add,
				Duration.ofSeconds(30));
		this.engines.add(unhearing);
		Future<LockHandle> waiter = this.executor
			.submit(() -> unhearing.acquire(new LockRequest("handover", "k", lease, Duration.ofSeconds(20), true, null)));
		awaitQueued(1);
		long released = System.nanoTime();
		assertThat(held.release()).isTrue();
		LockHandle next = waiter.get(20, TimeUnit.SECONDS);
		// Found by the next attempt, at most a third of the lease after the hand-over: well before two thirds, when
		// the lock would have less left than a renewal leaves it; by the holder's lease it would be nearly three.
		assertThat(Duration.ofNanos(System.nanoTime() - released)).as("learned of the hand-over after")
			.isLessThan(lease.multipliedBy(2).dividedBy(3));
		assertThat(next.isLost()).isFalse();
		assertThat(next.verify()).as("still its lock in Redis").isTrue();
		assertThat(next.release()).isTrue();
		assertThat(RedisKeys.all()).isEmpty();
	}

	@Test
	void aWaiterThatDiedInTheQueueCostsOthersAtMostItsLeaseAndOnePoll() throws Exception {
		RedisLockEngine engine = engine();
		LockHandle held = engine.acquire(request(Duration.ZERO));
		try (RespClient client = redis.client()) {
			// A waiter of a process that is gone: queued with a long wait and a 500 ms lease, never to answer.
			List<?> time = (List<?>) client.call("TIME");
			long queuedAt = Long.parseLong((String) time.get(0)) * 1_000_000 + Long.parseLong((String) time.get(1));
			client.call("SET", LOCK, client.get(LOCK) + "|w", "KEEPTTL");
			client.call("ZADD", QUEUE, String.valueOf(queuedAt), "dead-engine:1|500|60000");
		}
		// Nobody announces the end of a lease that runs out: the live waiter notices at its next poll.
		RedisLockEngine defaultPolling = engine(RedisLockEngine.DEFAULT_MAX_POLL);
		Future<LockHandle> live = this.executor.submit(() -> defaultPolling.acquire(request(Duration.ofSeconds(10))));
		awaitQueued(2);
		long released = System.nanoTime();
		assertThat(held.release()).isTrue();
		try (RespClient client = redis.client()) {
			assertThat(client.get(LOCK)).startsWith("dead-engine:1|");
		}
		LockHandle next = live.get(10, TimeUnit.SECONDS);
		assertThat(Duration.ofNanos(System.nanoTime() - released))
			.isLessThan(Duration.ofMillis(500).plus(RedisLockEngine.DEFAULT_MAX_POLL).plusMillis(1000));
		assertThat(next.release()).isTrue();
		assertThat(RedisKeys.all()).isEmpty();
	}

	@Test
	void whenALeaseRunsOutWithWaitersQueuedTheNextHolderStillHandsOverToTheRest() throws Exception {
		RedisLockEngine engine = engine(RedisLockEngine.DEFAULT_MAX_POLL);
		LockHandle expiring = engine.acquire(new LockRequest("handover", "k", Duration.ofMillis(300), Duration.ZERO,
				false, null));
		List<String> valuesWhileHeld = new CopyOnWriteArrayList<>();
		List<Future<?>> waiters = new ArrayList<>();
		for (RedisLockEngine waiting : List.of(engine, engine(RedisLockEngine.DEFAULT_MAX_POLL))) {
			waiters.add(this.executor.submit(() -> {
				LockHandle handle = waiting.acquire(request(Duration.ofSeconds(10)));
				try (RespClient client = redis.client()) {
					valuesWhileHeld.add(client.get(LOCK));
				}
				assertThat(handle.release()).isTrue();
				return null;
			}));
		}
		awaitQueued(2);
		for (Future<?> waiter : waiters) {
			waiter.get(10, TimeUnit.SECONDS);
		}
		assertThat(valuesWhileHeld).hasSize(2);
		assertThat(valuesWhileHeld.get(0)).as("the first waiter in, by poll after the lease ran out, keeps the mark")
			.endsWith("|w");
		assertThat(this.lost.poll(1, TimeUnit.SECONDS)).extracting(LostLock::reason)
			.isEqualTo(LostLock.Reason.LEASE_EXPIRED);
		assertThat(expiring.release()).isFalse();
		this.lost.clear();
		assertThat(RedisKeys.all()).isEmpty();
	}

	@Test
	void aSingleTryOnALockHeldInTheSameEngineCostsNoRoundTrip() throws Exception {
		RedisLockEngine engine = engine();
		RedisLockEngine other = engine();
		LockHandle held = engine.acquire(request(Duration.ZERO));
		long before = scriptCalls();
		for (int i = 0; i < 5; i++) {
			assertThatExceptionOfType(LockAcquisitionException.class)
				.isThrownBy(() -> engine.acquire(request(Duration.ZERO)));
		}
		assertThat(scriptCalls()).isEqualTo(before);
		assertThatExceptionOfType(LockAcquisitionException.class)
			.as("another engine asks Redis, once")
			.isThrownBy(() -> other.acquire(request(Duration.ZERO)));
		assertThat(scriptCalls()).isEqualTo(before + 1);
		assertThat(held.release()).isTrue();
		engine.acquire(request(Duration.ZERO)).release();
	}

	@Test
	void aFailedSingleTryOnALockHeldElsewhereReadsTheLockAndWritesNothing() throws Exception {
		LockHandle held = engine().acquire(request(Duration.ZERO));
		RedisLockEngine other = engine();
		long reads = calls("get");
		long writesAndClock = calls("set|time|zadd|pexpire");
		long scripts = scriptCalls();
		for (int i = 0; i < 5; i++) {
			assertThatExceptionOfType(LockAcquisitionException.class)
				.isThrownBy(() -> other.acquire(request(Duration.ZERO)));
		}
		assertThat(scriptCalls() - scripts).as("one script call per try").isEqualTo(5);
		assertThat(calls("get") - reads).as("one read per try").isEqualTo(5);
		assertThat(calls("set|time|zadd|pexpire") - writesAndClock).as("no write, no clock").isZero();
		assertThat(held.release()).isTrue();
	}

	/** Keys of this test's lock and queue left in Redis. */
	static final class RedisKeys {

		static List<String> all() {
			try (RespClient client = redis.client()) {
				return client.lockKeys("distlock*");
			}
		}

	}


	@Test
	void threadsOfOneEngineWaitInRedisOneAtATimeSoHoldersAlternateBetweenEngines() throws Exception {
		RedisLockEngine holder = engine();
		RedisLockEngine left = engine();
		RedisLockEngine right = engine();
		LockHandle first = holder.acquire(request(Duration.ZERO));
		int perEngine = 3;
		List<String> order = new CopyOnWriteArrayList<>();
		List<Future<?>> waiters = new ArrayList<>();
		for (int i = 0; i < perEngine; i++) {
			for (RedisLockEngine engine : List.of(left, right)) {
				String name = (engine == left) ? "left" : "right";
				waiters.add(this.executor.submit(() -> {
					LockHandle handle = engine.acquire(request(Duration.ofSeconds(30)));
					order.add(name);
					// Hold on until everyone who can queue has: one waiter per engine, at most two.
					awaitQueued(Math.min(2, 2 * perEngine - order.size()));
					assertThat(handle.release()).isTrue();
					return null;
				}));
			}
		}
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
		while (left.waitingCount() + right.waitingCount() < 2 * perEngine) {
			assertThat(System.nanoTime()).as("all waiters waiting").isLessThan(deadline);
			Thread.sleep(5);
		}
		awaitQueued(2);
		assertThat(first.release()).isTrue();
		for (Future<?> waiter : waiters) {
			waiter.get(30, TimeUnit.SECONDS);
		}
		assertThat(order).hasSize(2 * perEngine);
		for (int i = 1; i < order.size(); i++) {
			assertThat(order.get(i)).as("holder %d of %s", i, order).isNotEqualTo(order.get(i - 1));
		}
		assertThat(left.turnstiles().inUse(LOCK)).isFalse();
		assertThat(right.turnstiles().inUse(LOCK)).isFalse();
		assertThat(RedisKeys.all()).isEmpty();
	}

	@Test
	void aThreadWaitingForItsTurnInTheEngineGivesUpWithinItsWaitAndLeavesNoTrace() throws Exception {
		RedisLockEngine holder = engine();
		RedisLockEngine engine = engine();
		LockHandle held = holder.acquire(request(Duration.ZERO));
		Future<LockHandle> ahead = this.executor.submit(() -> engine.acquire(request(Duration.ofSeconds(30))));
		awaitQueued(1);
		long start = System.nanoTime();
		assertThatExceptionOfType(LockAcquisitionException.class)
			.isThrownBy(() -> engine.acquire(request(Duration.ofMillis(300))));
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(300))
			.isLessThan(Duration.ofSeconds(3));
		Future<LockHandle> interrupted = this.executor.submit(() -> engine.acquire(request(Duration.ofSeconds(30))));
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
		while (engine.waitingCount() < 2) {
			assertThat(System.nanoTime()).as("second waiter in line").isLessThan(deadline);
			Thread.sleep(5);
		}
		interrupted.cancel(true);
		while (engine.waitingCount() > 1) {
			assertThat(System.nanoTime()).as("interrupted waiter gone").isLessThan(deadline);
			Thread.sleep(5);
		}
		assertThat(queued()).as("only the thread ahead waits in Redis").isEqualTo(1);
		assertThat(held.release()).isTrue();
		assertThat(ahead.get(10, TimeUnit.SECONDS).release()).isTrue();
		assertThat(engine.turnstiles().inUse(LOCK)).isFalse();
		assertThat(RedisKeys.all()).isEmpty();
	}

}
