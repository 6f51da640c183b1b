package io.github.distlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import io.github.distlock.LockAcquisitionException;
import io.github.distlock.LockMode;
import io.github.distlock.LostLock;
import io.github.distlock.engine.LockHandle;
import io.github.distlock.engine.LockRequest;
import io.github.distlock.fixtures.redis.LeastPrivilegeRedis;
import io.github.distlock.fixtures.redis.RespClient;

import static org.assertj.core.api.Assertions.assertThat;
import io.github.distlock.fixtures.redis.RedisTestClients;

/**
 * The least-privilege ACL of docs/operations.md is enough, and every grant in it is needed: with the whole ACL a lock's life
 * (start-up checks, acquire, extend, a waiter that gives up, a hand-over, renewal, verification, release) runs
 * without a single refusal; without any one command, key pattern or channel pattern, some step of it is refused
 * with NOPERM. The optional {@code +info} only costs the eviction-policy check.
 */
class LeastPrivilegeAclIntegrationTests {

	private static final Duration TIMEOUT = Duration.ofSeconds(2);

	private static LeastPrivilegeRedis redis;

	@BeforeAll
	static void start() {
		redis = LeastPrivilegeRedis.start();
	}

	@AfterAll
	static void stop() {
		redis.close();
	}

	@Test
	void theWholeAclRunsALocksLifeWithoutARefusal() {
		redis.grant(LeastPrivilegeRedis.documentedRules());
		assertThat(lifecycle()).isEmpty();
		try (RespClient admin = redis.client()) {
			assertThat(admin.lockKeys("distlock*")).as("keys left").isEmpty();
		}
	}

	static Stream<String> requiredGrants() {
		return LeastPrivilegeRedis.documentedRules()
			.stream()
			.filter((rule) -> rule.startsWith("+") || rule.startsWith("~") || rule.startsWith("&"))
			.filter((rule) -> !rule.equals("+info"));
	}

	@ParameterizedTest(name = "without {0}")
	@MethodSource("requiredGrants")
	void everyGrantIsNeeded(String grant) {
		List<String> rules = new ArrayList<>(LeastPrivilegeRedis.documentedRules());
		rules.remove(grant);
		redis.grant(rules);
		try {
			List<String> problems = lifecycle();
			assertThat(problems).as("a lock's life without " + grant).isNotEmpty();
			assertThat(String.join("\n", problems)).containsAnyOf("NOPERM", "can't run this command", "STORE_REFUSED",
					"did not confirm the subscription", "still subscribed");
		}
		finally {
			redis.grant(LeastPrivilegeRedis.documentedRules());
			try (RespClient admin = redis.client()) {
				for (String key : admin.keys("distlock*")) {
					admin.call("DEL", key);
				}
			}
		}
	}

	@Test
	void withoutInfoLockingWorksAndTheEvictionPolicyIsUnknown() {
		List<String> rules = new ArrayList<>(LeastPrivilegeRedis.documentedRules());
		rules.remove("+info");
		redis.grant(rules);
		try {
			assertThat(lifecycle()).isEmpty();
			RedissonClient client = Redisson.create(config());
			try {
				EvictionPolicy policy = new EvictionPolicyReader(client, TIMEOUT).read();
				assertThat(policy.isKnown()).isFalse();
				assertThat(policy.unknownBecause()).contains("NOPERM");
			}
			finally {
				client.shutdown(0, 2, TimeUnit.SECONDS);
			}
		}
		finally {
			redis.grant(LeastPrivilegeRedis.documentedRules());
		}
	}

	private static Config config() {
		Config config = RedisTestClients.config(redis.url(), TIMEOUT);
		config.setUsername(redis.username());
		config.setPassword(redis.password());
		return config;
	}

	/**
	 * One lock's life through every script and channel the engine uses.
	 * @return what went wrong, in order; empty when nothing did
	 */
	private static List<String> lifecycle() {
		List<String> problems = new CopyOnWriteArrayList<>();
		RedissonClient client = null;
		RedisLockEngine first = null;
		RedisLockEngine second = null;
		try (RespClient admin = redis.client()) {
			// Scripts loaded by an earlier life would hide a missing permission to load them.
			admin.call("SCRIPT", "FLUSH");
		}
		try {
			Config config = config();
			RedisStartupCheck.connect(config);
			client = Redisson.create(config);
			RedisStartupCheck.verify(client, "distlock", TIMEOUT);
			first = new RedisLockEngine(client, "distlock", TIMEOUT, (lost) -> problems.add("lost: " + lost));
			second = new RedisLockEngine(client, "distlock", TIMEOUT, (lost) -> problems.add("lost: " + lost));

			LockHandle held = first.acquire(request(Duration.ZERO));
			if (!held.extend(Duration.ofSeconds(2))) {
				problems.add("extend refused");
			}
			try {
				second.acquire(request(Duration.ofMillis(100)));
				problems.add("a held lock was granted twice");
			}
			catch (LockAcquisitionException expected) {
				if (expected.isStoreUnavailable()) {
					problems.add("store unavailable: " + expected.getMessage());
				}
			}
			RedisLockEngine waiting = second;
			CompletableFuture<LockHandle> waiter = CompletableFuture.supplyAsync(() -> {
				try {
					return waiting.acquire(request(Duration.ofSeconds(5)));
				}
				catch (InterruptedException ex) {
					throw new IllegalStateException(ex);
				}
			});
			awaitQueued(waiter);
			if (!held.release()) {
				problems.add("release failed");
			}
			LockHandle next = waiter.get(5, TimeUnit.SECONDS);
			long deadline = next.leaseDeadlineNanos();
			long giveUp = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
			while (next.leaseDeadlineNanos() == deadline && System.nanoTime() < giveUp) {
				// Polling the handle: the watchdog signals a renewal by nothing else.
				Thread.sleep(20);
			}
			if (next.leaseDeadlineNanos() == deadline) {
				problems.add("never renewed");
			}
			if (!next.verify()) {
				problems.add("verification failed");
			}
			if (!next.release()) {
				problems.add("release failed");
			}
			sharedLife(first, second, problems);
		}
		catch (Exception ex) {
			problems.add(describe(ex));
		}
		finally {
			closeQuietly(first, problems);
			closeQuietly(second, problems);
			try (RespClient admin = redis.client()) {
				List<?> subscribers = (List<?>) admin.call("PUBSUB", "NUMSUB", "distlock:released");
				if (client != null && !"0".equals(String.valueOf(subscribers.get(1)))) {
					problems.add("still subscribed to distlock:released after the engines closed");
				}
			}
			if (client != null) {
				client.shutdown(0, 2, TimeUnit.SECONDS);
			}
		}
		return new ArrayList<>(problems);
	}

	/**
	 * A read/write lock's and a permit's life through every shared script: two readers, a writer handed the lock
	 * from the queue, a reader that gives up behind it (its withdrawal looks for a grant it may have missed),
	 * renewal, a check, an extension, and a permit refused to a second holder.
	 */
	private static void sharedLife(RedisLockEngine first, RedisLockEngine second, List<String> problems)
			throws Exception {
		LockHandle reader = first.acquire(shared(LockMode.READ, 0, Duration.ZERO));
		LockHandle otherReader = second.acquire(shared(LockMode.READ, 0, Duration.ZERO));
		CompletableFuture<LockHandle> writer = CompletableFuture.supplyAsync(() -> {
			try {
				return second.acquire(shared(LockMode.WRITE, 0, Duration.ofSeconds(5)));
			}
			catch (InterruptedException ex) {
				throw new IllegalStateException(ex);
			}
		});
		awaitQueued(writer, "distlock:{acl:life}:rw:waiters");
		long deadline = otherReader.leaseDeadlineNanos();
		long giveUp = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
		while (otherReader.leaseDeadlineNanos() == deadline && System.nanoTime() < giveUp) {
			Thread.sleep(20);
		}
		if (otherReader.leaseDeadlineNanos() == deadline) {
			problems.add("reader never renewed");
		}
		if (!otherReader.verify() || !otherReader.extend(Duration.ofSeconds(2))) {
			problems.add("reader verification or extension failed");
		}
		if (!reader.release() || !otherReader.release()) {
			problems.add("reader release failed");
		}
		LockHandle written = writer.get(5, TimeUnit.SECONDS);
		try {
			first.acquire(shared(LockMode.READ, 0, Duration.ofMillis(150)));
			problems.add("a reader got in beside the writer");
		}
		catch (LockAcquisitionException expected) {
			if (expected.isStoreUnavailable()) {
				problems.add("store unavailable: " + describe(expected));
			}
		}
		if (!written.release()) {
			problems.add("writer release failed");
		}
		LockHandle permit = first.acquire(shared(LockMode.EXCLUSIVE, 1, Duration.ZERO));
		try {
			second.acquire(shared(LockMode.EXCLUSIVE, 1, Duration.ZERO));
			problems.add("a second permit of one was granted");
		}
		catch (LockAcquisitionException expected) {
			if (expected.isStoreUnavailable()) {
				problems.add("store unavailable: " + describe(expected));
			}
		}
		if (!permit.release()) {
			problems.add("permit release failed");
		}
	}

	private static LockRequest shared(LockMode mode, int permits, Duration waitTime) {
		return new LockRequest("acl", "life", Duration.ofMillis(300), waitTime, true, null, mode, permits);
	}

	private static LockRequest request(Duration waitTime) {
		// A short lease: the watchdog renews every 100 ms, so the life includes renewals.
		return new LockRequest("acl", "life", Duration.ofMillis(300), waitTime, true, null);
	}

	/**
	 * Waits until the second engine's waiter is in the lock's queue. Not the lock's "|w" mark: the earlier timed-out
	 * attempt left it, so it would let the release run before the waiter queued, and the hand-over go untested.
	 */
	private static void awaitQueued(CompletableFuture<?> waiter) throws InterruptedException {
		awaitQueued(waiter, "distlock:{acl:life}:waiters");
	}

	private static void awaitQueued(CompletableFuture<?> waiter, String queue) throws InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
		try (RespClient admin = redis.client()) {
			// A waiter refused before it could queue is done: its failure is the finding.
			while (System.nanoTime() < deadline && !waiter.isDone()) {
				if (((Long) admin.call("ZCARD", queue)) > 0) {
					return;
				}
				Thread.sleep(5);
			}
		}
	}

	private static void closeQuietly(RedisLockEngine engine, List<String> problems) {
		if (engine != null) {
			try {
				engine.close();
			}
			catch (RuntimeException ex) {
				problems.add("close: " + describe(ex));
			}
		}
	}

	private static String describe(Throwable failure) {
		StringBuilder text = new StringBuilder();
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			text.append(cause.getClass().getSimpleName()).append(": ").append(cause.getMessage()).append(" | ");
		}
		return text.toString();
	}

}
