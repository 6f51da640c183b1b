package io.github.distlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.redisson.api.RedissonClient;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import io.github.distlock.LostLock;
import io.github.distlock.engine.LockHandle;
import io.github.distlock.engine.LockRequest;
import io.github.distlock.fixtures.redis.RedisExtension;
import io.github.distlock.fixtures.redis.RedisProcess;
import io.github.distlock.fixtures.redis.RedisServers;
import io.github.distlock.fixtures.redis.RespClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import io.github.distlock.fixtures.redis.RedisTestClients;

/**
 * A lock's identity in Redis: one lock per (name, key) pair whatever the characters, and every key of a lock in one
 * Redis Cluster hash slot, as a real cluster-enabled {@code redis-server} computes it ({@code CLUSTER KEYSLOT}).
 */
@ExtendWith(OutputCaptureExtension.class)
class RedisLockKeysIntegrationTests {

	@RegisterExtension
	static final RedisExtension redis = RedisExtension.anyServer();

	/** Hostile names and keys: separators, braces that would move a hash tag, escapes, line breaks. */
	private static final List<String> HOSTILE = List.of("x:y", ":", "::", "{", "}", "}{", "{a}", "a{b}c", "{}", "%",
			"%3A", "%7B", "a%7Db", "line\r\nWARN forged", "\u00e9t\u00e9 \u2603", "k".repeat(1000));

	/** Only answers CLUSTER KEYSLOT: no slots assigned, never a lock store. */
	private static RedisProcess slotCalculator;

	private final BlockingQueue<LostLock> lost = new LinkedBlockingQueue<>();

	private final List<RedissonClient> clients = new ArrayList<>();

	private final List<RedisLockEngine> engines = new ArrayList<>();

	@BeforeAll
	static void startSlotCalculator() {
		slotCalculator = RedisServers.startProcess(List.of("--cluster-enabled", "yes"));
	}

	@AfterAll
	static void stopSlotCalculator() {
		slotCalculator.close();
	}

	@AfterEach
	void stop() {
		this.engines.forEach(RedisLockEngine::close);
		this.clients.forEach((client) -> client.shutdown(0, 2, TimeUnit.SECONDS));
		assertThat(this.lost).isEmpty();
	}

	private RedisLockEngine engine() {
		RedissonClient client = RedisTestClients.create(redis.server(), Duration.ofSeconds(3));
		RedisLockEngine engine = new RedisLockEngine(client, "distlock", null, this.lost::add);
		this.clients.add(client);
		this.engines.add(engine);
		return engine;
	}

	private static LockRequest request(String name, String key, Duration wait) {
		return new LockRequest(name, key, Duration.ofSeconds(10), wait, true, null);
	}

	@Test
	void aSeparatorInTheNameOrKeyNeverMakesTwoLocksOne() throws InterruptedException {
		RedisLockEngine engine = engine();
		String[][] pairs = { { "a", "x:y" }, { "a:x", "y" }, { "a", "x%3Ay" }, { "a%3Ax", "y" }, { "a:", "x" },
				{ "a", ":x" } };
		List<LockHandle> held = new ArrayList<>();
		for (String[] pair : pairs) {
			// A single try: it fails at once if another pair already holds the same Redis key.
			held.add(engine.acquire(request(pair[0], pair[1], Duration.ZERO)));
		}
		try (RespClient client = redis.client()) {
			assertThat(client.lockKeys("distlock:*")).hasSize(pairs.length);
		}
		for (LockHandle handle : held) {
			assertThat(handle.release()).isTrue();
		}
	}

	@Test
	void everyKeyOfALockHashesToTheSlotOfItsTag() {
		RedisLockKeys keys = new RedisLockKeys("distlock");
		try (RespClient calculator = slotCalculator.client()) {
			for (String name : List.of("orders", "a{b}", "}")) {
				for (String key : HOSTILE) {
					String lockKey = keys.lockKey(name, key);
					long lockSlot = slot(calculator, lockKey);
					assertThat(slot(calculator, RedisLockKeys.queueKey(lockKey))).as("queue of %s", lockKey)
						.isEqualTo(lockSlot);
					String tag = lockKey.substring(lockKey.indexOf('{') + 1, lockKey.indexOf('}'));
					assertThat(slot(calculator, tag)).as("the tag of %s is all between its braces", lockKey)
						.isEqualTo(lockSlot);
					assertThat(keys.parseLockKey(lockKey)).containsExactly(name, key);
				}
			}
		}
	}

	@Test
	void theKeysAHeldAndWaitedForLockCreatesShareOneSlot() throws Exception {
		RedisLockEngine holderEngine = engine();
		RedisLockEngine waiterEngine = engine();
		String key = "}{evil:key\r\n";
		LockHandle held = holderEngine.acquire(request("hostile", key, Duration.ZERO));
		ExecutorService executor = Executors.newSingleThreadExecutor();
		try (RespClient client = redis.client(); RespClient calculator = slotCalculator.client()) {
			Future<LockHandle> waiter = executor.submit(() -> waiterEngine.acquire(request("hostile", key,
					Duration.ofSeconds(10))));
			List<String> created = awaitKeys(client, 2);
			assertThat(created).containsExactlyInAnyOrder(new RedisLockKeys("distlock").lockKey("hostile", key),
					new RedisLockKeys("distlock").lockKey("hostile", key) + ":waiters");
			assertThat(created.stream().map((redisKey) -> slot(calculator, redisKey)).distinct()).hasSize(1);
			assertThat(held.release()).isTrue();
			assertThat(waiter.get(10, TimeUnit.SECONDS).release()).isTrue();
		}
		finally {
			executor.shutdownNow();
		}
	}

	@Test
	void aHostileKeyCannotForgeOrFloodALogLine(CapturedOutput output) throws InterruptedException {
		RedisLockEngine engine = engine();
		String forging = "x\r\n" + "12:00:00.000 WARN  [main] i.g.d.Payments - refund approved ";
		String flooding = "f".repeat(LockRequest.MAX_KEY_LENGTH);
		for (String key : List.of(forging, flooding)) {
			LockHandle handle = engine.acquire(request("hostile", key, Duration.ZERO));
			try (RespClient client = redis.client()) {
				client.call("DEL", new RedisLockKeys("distlock").lockKey("hostile", key));
			}
			assertThat(handle.verify()).isFalse();
			assertThat(handle.release()).isFalse();
		}
		assertThat(this.lost).hasSize(2);
		this.lost.clear();
		List<String> lossLines = output.getOut().lines().filter((line) -> line.contains("Lost lock 'hostile'")).toList();
		assertThat(lossLines).hasSize(2);
		assertThat(lossLines.get(0)).contains("key 'x\\r\\n12:00:00.000 WARN");
		assertThat(output.getOut().lines()).noneMatch((line) -> line.startsWith("12:00:00.000 WARN"));
		assertThat(lossLines.get(1)).contains("...(1024 characters)").hasSizeLessThan(500);
	}

	@Test
	void aPrefixWithABraceIsRefusedBecauseItWouldMoveTheTag() {
		RedissonClient client = RedisTestClients.create(redis.server(), Duration.ofSeconds(3));
		this.clients.add(client);
		for (String prefix : List.of("app{1}", "app}", "")) {
			assertThatIllegalArgumentException()
				.isThrownBy(() -> new RedisLockEngine(client, prefix, null, this.lost::add))
				.withMessageContaining("distlock.redis.key-prefix");
		}
	}

	/** Waits until the waiter has queued: the lock and its queue both exist. */
	private static List<String> awaitKeys(RespClient client, int count) throws InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
		List<String> keys = client.lockKeys("distlock:*");
		while (keys.size() < count) {
			assertThat(System.nanoTime()).as("keys created: %s", keys).isLessThan(deadline);
			// Polling Redis, the only place the waiter's queue entry shows.
			Thread.sleep(5);
			keys = client.lockKeys("distlock:*");
		}
		return keys;
	}

	private static long slot(RespClient calculator, String redisKey) {
		return (Long) calculator.call("CLUSTER", "KEYSLOT", redisKey);
	}

}
