package io.github.distlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.redisson.api.RedissonClient;
import org.redisson.client.RedisException;
import org.redisson.client.codec.StringCodec;

import io.github.distlock.LockAcquisitionException;
import io.github.distlock.LostLock;
import io.github.distlock.engine.LockHandle;
import io.github.distlock.engine.LockRequest;
import io.github.distlock.fixtures.redis.RedisExtension;
import io.github.distlock.fixtures.redis.RedisProcess;
import io.github.distlock.fixtures.redis.RespClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import io.github.distlock.fixtures.redis.RedisTestClients;

/**
 * The engine when Redis stalls, dies and comes back, and under many waiters: bounded waits, recovery without a
 * restart of the application, and one subscription per engine however many threads wait.
 */
class RedisOutageIntegrationTests {

	@RegisterExtension
	static final RedisExtension redis = RedisExtension.localProcess();

	private static final Duration COMMAND_TIMEOUT = Duration.ofMillis(500);

	private final List<LostLock> lost = new CopyOnWriteArrayList<>();

	private RedissonClient client;

	private RedisLockEngine engine;

	@BeforeEach
	void start() {
		this.client = RedisTestClients.create(redis.server(), COMMAND_TIMEOUT);
		this.engine = new RedisLockEngine(this.client, "distlock", null, this.lost::add);
	}

	@AfterEach
	void stop() {
		this.engine.close();
		this.client.shutdown(0, 2, TimeUnit.SECONDS);
	}

	private RedisProcess process() {
		return (RedisProcess) redis.server();
	}

	private static LockRequest request(String key, Duration wait) {
		return new LockRequest("outage", key, Duration.ofSeconds(5), wait, true, null);
	}

	@Test
	void aPausedRedisFailsAcquisitionWithinWaitTimePlusOneCommandTimeoutAndRecovers() throws Exception {
		this.engine.acquire(request("warm-up", Duration.ZERO)).release();
		process().pause();
		long start = System.nanoTime();
		try {
			assertThatExceptionOfType(LockAcquisitionException.class)
				.isThrownBy(() -> this.engine.acquire(request("p", Duration.ofSeconds(1))))
				.satisfies((ex) -> assertThat(ex.isStoreUnavailable()).isTrue());
		}
		finally {
			process().resume();
		}
		Duration took = Duration.ofNanos(System.nanoTime() - start);
		assertThat(took).isGreaterThanOrEqualTo(Duration.ofSeconds(1))
			.isLessThan(Duration.ofSeconds(1).plus(COMMAND_TIMEOUT).plusMillis(700));
		LockHandle handle = this.engine.acquire(request("p", Duration.ofSeconds(10)));
		assertThat(handle.release()).isTrue();
	}

	/**
	 * An engine subscribes to its release channels as it starts, and SUBSCRIBE's answer is bounded by the client's
	 * timeout. On a starved machine the answer can come late once: the application still starts, and the engine hears
	 * releases. (It failed the start, at the first timeout: CI's JDK 25 pass, beside the torture runs.)
	 */
	@Test
	void anEngineWhoseSubscriptionIsAnsweredLateOnceStillStarts() throws Exception {
		RedissonClient lateClient = RedisTestClients.create(redis.server(), COMMAND_TIMEOUT);
		RedisLockEngine late = null;
		try (RespClient raw = redis.client()) {
			long subscribersBefore = subscribers(raw);
			// Every command waits for longer than one timeout and less than two: the engine's first SUBSCRIBE times
			// out, the next is answered as the pause ends.
			long pauseMillis = COMMAND_TIMEOUT.toMillis() * 6 / 5;
			raw.call("CLIENT", "PAUSE", String.valueOf(pauseMillis), "ALL");
			late = new RedisLockEngine(lateClient, "distlock", null, this.lost::add);
			assertThat(subscribers(raw)).as("the engine listens on the release channel")
				.isEqualTo(subscribersBefore + 1);
			// The attempt that timed out must not have left a listener behind: each release would wake twice, and
			// the engine's close would remove only the listener of the attempt that answered.
			assertThat(lateClient.getTopic("distlock:released", StringCodec.INSTANCE).countListeners())
				.as("listeners of the late engine's client on the release channel")
				.isEqualTo(1);
			LockHandle handle = late.acquire(request("late", Duration.ofSeconds(5)));
			assertThat(handle.release()).isTrue();
		}
		finally {
			if (late != null) {
				late.close();
			}
			lateClient.shutdown(0, 2, TimeUnit.SECONDS);
		}
	}

	private static long subscribers(RespClient raw) {
		List<?> counts = (List<?>) raw.call("PUBSUB", "NUMSUB", "distlock:released");
		return ((Number) counts.get(1)).longValue();
	}

	@Test
	void aRestartedRedisIsUsedAgainAndTokensKeepGrowing() throws Exception {
		LockHandle before = this.engine.acquire(request("r", Duration.ZERO));
		long tokenBefore = before.token();
		before.release();
		process().kill();
		long start = System.nanoTime();
		assertThatExceptionOfType(LockAcquisitionException.class)
			.isThrownBy(() -> this.engine.acquire(request("r", Duration.ofMillis(500))))
			.satisfies((ex) -> assertThat(ex.isStoreUnavailable()).isTrue());
		assertThat(Duration.ofNanos(System.nanoTime() - start))
			.isLessThan(Duration.ofMillis(500).plus(COMMAND_TIMEOUT).plusMillis(700));
		process().restart();
		// The restarted server knows none of the engine's scripts: the engine must load them again by itself.
		LockHandle after = this.engine.acquire(request("r", Duration.ofSeconds(15)));
		assertThat(after.token()).isGreaterThan(tokenBefore);
		assertThat(after.release()).isTrue();
	}

	@Test
	void manyWaitersOnManyKeysShareTwoSubscriptionsPerEngineAndAFewConnections() throws Exception {
		RedissonClient otherClient = RedisTestClients.create(redis.server(), Duration.ofSeconds(3));
		RedisLockEngine other = new RedisLockEngine(otherClient, "distlock", null, this.lost::add);
		int keys = 50;
		int waitersPerKey = 4;
		ExecutorService pool = Executors.newFixedThreadPool(keys * waitersPerKey);
		try {
			List<LockHandle> held = new ArrayList<>();
			for (int k = 0; k < keys; k++) {
				held.add(this.engine.acquire(request("many-" + k, Duration.ZERO)));
			}
			List<Future<Long>> waiters = new ArrayList<>();
			for (int k = 0; k < keys; k++) {
				for (int w = 0; w < waitersPerKey; w++) {
					String key = "many-" + k;
					waiters.add(pool.submit(() -> {
						LockHandle handle = other.acquire(request(key, Duration.ofSeconds(60)));
						handle.release();
						return handle.token();
					}));
				}
			}
			try (RespClient raw = redis.client()) {
				awaitAllKeysMarked(raw, keys);
				List<?> numsub = (List<?>) raw.call("PUBSUB", "NUMSUB", "distlock:released");
				assertThat(numsub.get(1)).as("one shared subscription per engine, not per waiter").isEqualTo(2L);
				List<?> channels = (List<?>) raw.call("PUBSUB", "CHANNELS", "distlock:released*");
				assertThat(channels).as("the shared channel and one hand-over channel per engine").hasSize(3);
				String clients = (String) raw.call("CLIENT", "LIST");
				assertThat(clients.lines().count()).as("connections stay bounded by the pools").isLessThan(60);
			}
			assertThat(waiters).noneMatch(Future::isDone);
			for (LockHandle handle : held) {
				assertThat(handle.release()).isTrue();
			}
			for (Future<Long> waiter : waiters) {
				assertThat(waiter.get(60, TimeUnit.SECONDS)).isPositive();
			}
		}
		finally {
			pool.shutdownNow();
			other.close();
			otherClient.shutdown(0, 2, TimeUnit.SECONDS);
		}
		assertThat(this.lost).isEmpty();
	}

	/**
	 * Redis holds every command (CLIENT PAUSE) past the lease, and the command timeout is longer than the lease: the
	 * renewal sent a third of the lease in gets no answer. The holder's clock decides: the lock is reported lost at
	 * its deadline, once, not when the command timeout at last fails the renewal, and the release that follows is
	 * told at once that the lock was lost, without a round trip. (A short torture run on a cluster found the old way,
	 * where the watchdog waited on the renewal and a second holder got the lock before the first was told.)
	 */
	@Test
	void aLeaseRunOutWhileRedisHoldsItsRenewalIsLostAtItsDeadlineNotAtTheCommandTimeout() throws Exception {
		Duration commandTimeout = Duration.ofSeconds(3);
		Duration lease = Duration.ofSeconds(1);
		RedissonClient slowClient = RedisTestClients.create(redis.server(), commandTimeout);
		List<Long> reportedAt = new CopyOnWriteArrayList<>();
		RedisLockEngine slow = new RedisLockEngine(slowClient, "distlock", null, (loss) -> {
			reportedAt.add(System.nanoTime());
			this.lost.add(loss);
		});
		try {
			LockHandle held = slow.acquire(new LockRequest("outage", "unanswered", lease, Duration.ZERO, true, null));
			long grantedUntil = held.leaseDeadlineNanos();
			try (RespClient raw = redis.client()) {
				// Every command from now on waits: the renewal due a third of the lease in, then anything else.
				raw.call("CLIENT", "PAUSE", "5000", "ALL");
			}
			try {
				long giveUpAt = grantedUntil + commandTimeout.toNanos();
				while (reportedAt.isEmpty() && System.nanoTime() - giveUpAt < 0) {
					Thread.sleep(10);
				}
				assertThat(held.leaseDeadlineNanos()).as("not renewed").isEqualTo(grantedUntil);
				assertThat(reportedAt).as("the loss, reported before the renewal's command timeout").hasSize(1);
				assertThat(reportedAt.get(0) - grantedUntil).as("how long after the deadline the loss was reported")
					.isNotNegative()
					.isLessThan(lease.toNanos() / 3);
				assertThat(this.lost).singleElement().satisfies((loss) -> {
					assertThat(loss.key()).isEqualTo("unanswered");
					assertThat(loss.token()).isEqualTo(held.token());
					assertThat(loss.reason()).isEqualTo(LostLock.Reason.STORE_UNREACHABLE);
				});
				assertThat(held.isLost()).isTrue();
				assertThat(held.verify()).isFalse();
				long releasing = System.nanoTime();
				assertThat(held.release()).as("the release of a lost lock").isFalse();
				assertThat(System.nanoTime() - releasing).as("the release's time: no round trip to the paused Redis")
					.isLessThan(commandTimeout.toNanos());
			}
			finally {
				try (RespClient raw = redis.client()) {
					raw.call("CLIENT", "UNPAUSE");
				}
			}
			assertThat(held.release()).as("nothing left to release").isFalse();
		}
		finally {
			slow.close();
			slowClient.shutdown(0, 2, TimeUnit.SECONDS);
		}
		assertThat(this.lost).as("reported once").hasSize(1);
	}

	/**
	 * The other side of the test above, against a false alarm: a release that gets no answer while the lease still
	 * runs by the holder's clock is no loss. Nobody else can hold the lock before that lease ends, whether or not the
	 * release reached Redis; the caller hears that the release was not confirmed.
	 */
	@Test
	void aReleaseUnansweredWithinTheLeaseReportsNoLoss() throws Exception {
		LockHandle held = this.engine.acquire(request("unanswered-early", Duration.ZERO));
		try (RespClient raw = redis.client()) {
			raw.call("CLIENT", "PAUSE", "3000", "ALL");
		}
		try {
			assertThatExceptionOfType(RedisException.class).as("the release unanswered").isThrownBy(held::release);
			assertThat(System.nanoTime() - held.leaseDeadlineNanos()).as("still within the lease").isNegative();
		}
		finally {
			try (RespClient raw = redis.client()) {
				raw.call("CLIENT", "UNPAUSE");
			}
		}
		assertThat(held.isLost()).isFalse();
		assertThat(held.release()).as("done with").isFalse();
		assertThat(this.lost).as("no false alarm").isEmpty();
	}

	private static void awaitAllKeysMarked(RespClient raw, int keys) throws InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
		while (System.nanoTime() < deadline) {
			long marked = raw.keys("distlock:{outage:many-*}")
				.stream()
				.filter((key) -> raw.get(key).endsWith("|w"))
				.count();
			if (marked == keys) {
				return;
			}
			Thread.sleep(10);
		}
		throw new AssertionError("Waiters did not queue on every key");
	}

}
