package io.github.distlock.redis;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import org.junit.jupiter.api.AfterEach;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import io.github.distlock.LostLock;
import io.github.distlock.engine.LockHandle;
import io.github.distlock.engine.LockRequest;
import io.github.distlock.fixtures.redis.RedisCluster;
import io.github.distlock.fixtures.redis.RedisProcess;
import io.github.distlock.fixtures.redis.RespClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the tests of a waiter's shard-channel subscriptions on a real Redis Cluster share: engines of their own
 * clients, a lock kept contended so that its line never empties, and hand-overs that must be heard.
 * <p>
 * The holder keeps its lock renewed with a long lease and the waiter polls at most every 30 s, so the waiter's
 * regular polls come seconds apart: a hand-over it gets within a second was heard, or found by the short polls of a
 * waiter whose subscription is on its way.
 */
abstract class ClusterWaitersTestSupport {

	static final Duration LEASE = Duration.ofSeconds(6);

	/** Well under the waiter's pause between polls (two thirds of the lease or more, the holder renewing). */
	static final Duration HEARD_WITHIN = Duration.ofSeconds(1);

	final BlockingQueue<LostLock> lost = new LinkedBlockingQueue<>();

	final Map<RedisLockEngine, RedissonClient> engines = new LinkedHashMap<>();

	final ExecutorService threads = Executors.newCachedThreadPool();

	@AfterEach
	void stop() {
		this.threads.shutdownNow();
		this.engines.forEach((engine, client) -> {
			engine.close();
			client.shutdown(0, 2, TimeUnit.SECONDS);
		});
	}

	/** The cluster the engines lock on. */
	abstract RedisCluster cluster();

	RedisLockEngine engine(Config config) {
		RedissonClient client = Redisson.create(config);
		RedisLockEngine engine = new RedisLockEngine(client, "distlock", Duration.ofSeconds(2), this.lost::add,
				Duration.ofSeconds(30));
		this.engines.put(engine, client);
		return engine;
	}

	/** A client configuration for that cluster; each engine gets a client of its own. */
	abstract Config config();

	static LockRequest request(String key, Duration wait) {
		return new LockRequest("subscribed", key, LEASE, wait, true, null);
	}

	static String lockKey(String key) {
		return new RedisLockKeys("distlock").lockKey("subscribed", key);
	}


	/** A lock held by one engine, with two threads of another waiting for it, the first subscribed on its master. */
	record Contended(String key, LockHandle held, RedisLockEngine waiters, Future<LockHandle> first,
			Future<LockHandle> second, RedisProcess master) {
	}

	Contended contended(String key) throws Exception {
		String lockKey = lockKey(key);
		RedisLockEngine holder = engine(config());
		RedisLockEngine waiters = engine(config());
		LockHandle held = holder.acquire(request(key, Duration.ZERO));
		Future<LockHandle> first = waitOnThread(waiters, key);
		awaitQueued(lockKey);
		RedisProcess master = cluster().masterOf(lockKey);
		awaitSubscribed(master, lockKey);
		// A second thread in the engine's line behind the first: the line does not empty while the lock is held.
		Future<LockHandle> second = waitOnThread(waiters, key);
		await("two threads of the engine waiting", () -> waiters.waitingCount() == 2);
		return new Contended(lockKey, held, waiters, first, second, master);
	}

	/**
	 * Hands the lock to the first waiter, then, once the waiters' engine is subscribed on the node, to the second:
	 * each within {@link #HEARD_WITHIN}, with no false alarm.
	 */
	void handOverToBoth(Contended lock, RedisProcess node) throws Exception {
		LockHandle firstHandle = handOver(lock.held(), lock.first());
		String engineChannel = lock.key() + ":released:" + engineId(lock.waiters(), firstHandle);
		await("the waiting engine's channel on port " + node.port(), () -> shardChannels(node, lock.key())
			.contains(engineChannel));
		handOver(firstHandle, lock.second()).release();
		assertThat(this.lost).as("no false alarm").isEmpty();
	}

	RedisProcess otherMasterThan(RedisProcess master) {
		return cluster().currentMasters().stream().filter((node) -> node != master).findFirst().orElseThrow();
	}

	/** Releases the held lock and expects the waiter to be handed it within {@link #HEARD_WITHIN}: heard. */
	LockHandle handOver(LockHandle held, Future<LockHandle> next) throws Exception {
		long released = System.nanoTime();
		assertThat(held.release()).isTrue();
		LockHandle handedOver = next.get(LEASE.toMillis() * 2, TimeUnit.MILLISECONDS);
		assertThat(Duration.ofNanos(System.nanoTime() - released))
			.as("heard, or found by a short poll; not by a regular one")
			.isLessThan(HEARD_WITHIN);
		assertThat(handedOver.token()).as("the fence holds").isGreaterThan(held.token());
		return handedOver;
	}

	/** A wait on a thread of its own: the common pool may have a single thread on a small machine. */
	Future<LockHandle> waitOnThread(RedisLockEngine engine, String key) {
		return this.threads.submit(() -> engine.acquire(request(key, Duration.ofSeconds(60))));
	}

	/** The engine's id, which ends the name of the channel its hand-overs are announced on. */
	static String engineId(RedisLockEngine engine, LockHandle held) {
		String holder = engine.heldLocks().stream().filter((view) -> view.token() == held.token()).findFirst()
			.orElseThrow().holder();
		return holder.substring(0, holder.indexOf(':'));
	}

	static CompletableFuture<LockHandle> waitFor(RedisLockEngine engine, String key) {
		return CompletableFuture.supplyAsync(() -> {
			try {
				return engine.acquire(request(key, Duration.ofSeconds(60)));
			}
			catch (InterruptedException ex) {
				throw new IllegalStateException(ex);
			}
		});
	}

	/** Waits until a waiter queued on the lock: it marks the lock ("|w"). */
	void awaitQueued(String lockKey) throws InterruptedException {
		await("a waiter queued on " + lockKey, () -> {
			try (RespClient client = cluster().clientFor(lockKey)) {
				String value = client.get(lockKey);
				return value != null && value.endsWith("|w");
			}
		});
	}

	/** Waits until the waiting engine hears both of the lock's shard channels on the node. */
	static void awaitSubscribed(RedisProcess node, String lockKey) throws InterruptedException {
		awaitSubscribed(node, lockKey, 2);
	}

	static void awaitSubscribed(RedisProcess node, String lockKey, int channels) throws InterruptedException {
		await(channels + " shard channel(s) of " + lockKey + " subscribed on port " + node.port(),
				() -> shardSubscriptions(node, lockKey) == channels);
	}

	/** How many of the lock's shard channels (releases, hand-overs to one engine) have a subscriber on the node. */
	static int shardSubscriptions(RedisProcess node, String lockKey) {
		return shardChannels(node, lockKey).size();
	}

	/** The lock's shard channels that have a subscriber on the node. */
	static List<String> shardChannels(RedisProcess node, String lockKey) {
		try (RespClient client = node.client()) {
			return ((List<?>) client.call("PUBSUB", "SHARDCHANNELS", lockKey + ":released*")).stream()
				.map(String::valueOf)
				.toList();
		}
	}

	static void await(String what, BooleanSupplier condition) throws InterruptedException {
		// Longer than the waiter's pause between attempts: a new subscription is made after an attempt.
		long deadline = System.nanoTime() + LEASE.toNanos() * 2;
		while (!condition.getAsBoolean()) {
			if (System.nanoTime() > deadline) {
				throw new AssertionError("Timed out waiting for " + what);
			}
			Thread.sleep(20);
		}
	}

}
