package io.github.distlock.redis;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.redisson.Redisson;
import org.redisson.api.RShardedTopic;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.redisson.config.Config;

import io.github.distlock.LostLock;
import io.github.distlock.engine.LockHandle;
import io.github.distlock.engine.LockRequest;
import io.github.distlock.test.LeastPrivilegeRedis;
import io.github.distlock.test.RedisCluster;
import io.github.distlock.test.RedisClusterExtension;
import io.github.distlock.test.RedisProcess;
import io.github.distlock.test.RespClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * A waiter's subscription to its lock's shard channels on a real Redis Cluster (three masters, a replica each), while
 * the lock stays contended the whole time, so that its line never empties: after the subscription was refused and is
 * allowed again, after its connection was killed, after the command connections were killed, after a coordinated
 * failover of the lock's master, and after the lock's slot moved to another master, the waiter is subscribed on the
 * lock's master and hears the next hand-over instead of polling for it.
 * <p>
 * The holder keeps its lock renewed with a long lease and the waiter polls at most every 30 s, so the waiter's
 * regular polls come seconds apart: a hand-over it gets within a second was heard, or found by the short polls of a
 * waiter whose subscription is on its way.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RedisClusterSubscriptionIntegrationTests {

	@RegisterExtension
	static final RedisClusterExtension redis = RedisClusterExtension.masters(3, 1);

	private static final Duration LEASE = Duration.ofSeconds(6);

	/** Well under the waiter's pause between polls (two thirds of the lease or more, the holder renewing). */
	private static final Duration HEARD_WITHIN = Duration.ofSeconds(1);

	private final BlockingQueue<LostLock> lost = new LinkedBlockingQueue<>();

	private final Map<RedisLockEngine, RedissonClient> engines = new LinkedHashMap<>();

	private final ExecutorService threads = Executors.newCachedThreadPool();

	@AfterEach
	void stop() {
		this.threads.shutdownNow();
		this.engines.forEach((engine, client) -> {
			engine.close();
			client.shutdown(0, 2, TimeUnit.SECONDS);
		});
	}

	private static RedisCluster cluster() {
		return redis.cluster();
	}

	private RedisLockEngine engine(Config config) {
		RedissonClient client = Redisson.create(config);
		RedisLockEngine engine = new RedisLockEngine(client, "distlock", Duration.ofSeconds(2), this.lost::add,
				Duration.ofSeconds(30));
		this.engines.put(engine, client);
		return engine;
	}

	private static Config config() {
		return RedisTestClients.clusterConfig(cluster(), Duration.ofSeconds(2));
	}

	private static LockRequest request(String key, Duration wait) {
		return new LockRequest("subscribed", key, LEASE, wait, true, null);
	}

	private static String lockKey(String key) {
		return new RedisLockKeys("distlock").lockKey("subscribed", key);
	}

	@Test
	@Order(1)
	void aRefusedSubscriptionIsMadeOnceAllowedWhileTheLockStaysContended() throws Exception {
		String lockKey = lockKey("refused");
		// The README's ACL with the cluster grants but SSUBSCRIBE: the waiter's engine can lock, not subscribe.
		Config restricted = leastPrivileged(RedisClusterIntegrationTests.CLUSTER_GRANTS.replace(" +ssubscribe", ""));
		RedisLockEngine holder = engine(config());
		RedisLockEngine waiter = engine(restricted);

		LockHandle held = holder.acquire(request("refused", Duration.ZERO));
		CompletableFuture<LockHandle> next = waitFor(waiter, "refused");
		awaitQueued(lockKey);
		RedisProcess master = cluster().masterOf(lockKey);
		await("the master to refuse the waiter's SSUBSCRIBE", () -> {
			try (RespClient client = master.client()) {
				return String.valueOf(client.call("ACL", "LOG")).contains("ssubscribe");
			}
		});
		assertThat(shardSubscriptions(master, lockKey)).as("refused: not subscribed").isZero();

		for (RedisProcess node : cluster().nodes()) {
			try (RespClient client = node.client()) {
				client.call("ACL", "SETUSER", LeastPrivilegeRedis.USER, "+ssubscribe");
			}
		}
		// The waiter never stops waiting: its next attempt after the failed subscription is a second old subscribes.
		awaitSubscribed(master, lockKey);
		LockHandle handedOver = handOver(held, next);
		assertThat(handedOver.release()).isTrue();
		assertThat(this.lost).as("no false alarm").isEmpty();
	}

	@Test
	@Order(2)
	void aKilledSubscriptionConnectionIsSubscribedAgainWhileTheLockStaysContended() throws Exception {
		Contended lock = contended("killed");
		try (RespClient client = lock.master().client()) {
			assertThat((Long) client.call("CLIENT", "KILL", "TYPE", "pubsub")).as("subscriptions cut").isPositive();
		}
		handOverToBoth(lock, lock.master());
	}

	@Test
	@Order(3)
	void aCoordinatedFailoverOfTheLocksMasterLeavesTheWaiterSubscribedOnTheNewMaster() throws Exception {
		Contended lock = contended("failover");
		RedisProcess replica = cluster().replicaOf(lock.master());
		cluster().awaitReplicated(replica, lock.key());
		cluster().failover(replica);
		handOverToBoth(lock, replica);
	}

	/**
	 * When a lock's slot moves, Redis unsubscribes its shard channels on the old master: once the client's topology
	 * scan has seen the move, its waiter notices within a quarter second, looks at the lock and subscribes again
	 * where the slot is now (which Redisson's own subscriptions cannot, below).
	 */
	@Test
	@Order(4)
	void aSlotMovedUnderAContendedLockLeavesItsWaitersSubscribedWhereTheSlotIsNow() throws Exception {
		Contended lock = contended("moved");
		int slot = HashSlot.of(lock.key());
		RedisProcess target = otherMasterThan(lock.master());
		RedisCluster.SlotMigration migration = cluster().migrate(slot, target);
		migration.moveKeys();
		migration.finish();
		// Both waiters: the first learns that the source dropped its subscription and subscribes on the target (or
		// polls shortly until it can), the second is subscribed there from the start.
		handOverToBoth(lock, target);
	}

	/**
	 * Why the engine opens its own connections for the locks' shard channels, shown on Redisson's own sharded topic
	 * alone: once a shard channel's slot has moved, Redisson 4.7 forgets the subscription and does not make it again
	 * when asked; the attempt times out (after the default subscription timeout, 7.5 s) waiting for one of the 50
	 * locks its subscriptions share, which it keeps (by hand: attempts 1, 3, 9 and 20 s after the move all failed so,
	 * and so did a channel of another slot that falls on the same lock). Another channel of the moved slot subscribes
	 * at once. When this fails, Redisson follows moved shard channels.
	 */
	@Test
	@Order(5)
	void redissonDoesNotSubscribeAgainToAShardChannelWhoseSlotMoved() throws Exception {
		RedissonClient client = Redisson.create(config());
		try {
			String lockKey = lockKey("redisson");
			String channel = lockKey + ":released";
			RShardedTopic topic = client.getShardedTopic(channel, StringCodec.INSTANCE);
			topic.addListener(String.class, (name, message) -> {
			});
			int slot = HashSlot.of(channel);
			RedisProcess source = cluster().masterOfSlot(slot);
			awaitSubscribed(source, lockKey, 1);
			RedisProcess target = otherMasterThan(source);
			RedisCluster.SlotMigration migration = cluster().migrate(slot, target);
			migration.moveKeys();
			migration.finish();
			await("the client to forget the subscription", () -> topic.countListeners() == 0);

			assertThatExceptionOfType(ExecutionException.class).as("subscribing again")
				.isThrownBy(() -> topic.addListenerAsync(String.class, (name, message) -> {
				}).toCompletableFuture().get(15, TimeUnit.SECONDS))
				.withMessageContaining("subscription lock");
			RShardedTopic sameSlot = client.getShardedTopic(channel + ":other", StringCodec.INSTANCE);
			sameSlot.addListenerAsync(String.class, (name, message) -> {
			}).toCompletableFuture().get(5, TimeUnit.SECONDS);
			assertThat(shardChannels(target, lockKey))
				.as("another channel of the slot, on its new master").containsExactly(channel + ":other");
		}
		finally {
			client.shutdown(0, 2, TimeUnit.SECONDS);
		}
	}

	@Test
	@Order(6)
	void killedCommandConnectionsLeaveAContendedLocksWaitersSubscribed() throws Exception {
		Contended lock = contended("commands");
		int killed = 0;
		for (int round = 0; round < 3; round++) {
			for (RedisProcess node : cluster().nodes()) {
				try (RespClient client = node.client()) {
					// Every command connection but this one, on masters and replicas, as the torture run does.
					killed += ((Long) client.call("CLIENT", "KILL", "TYPE", "normal", "SKIPME", "yes")).intValue();
				}
			}
			// Fault timing: reconnected connections are cut again.
			Thread.sleep(250);
		}
		assertThat(killed).as("command connections cut").isPositive();
		handOverToBoth(lock, lock.master());
	}

	/**
	 * A client that is not Redisson's own implementation (here Redisson's, seen only through its interface) gets no
	 * connections of the engine's own: its waiters subscribe through Redisson's sharded topics, and hear hand-overs.
	 */
	@Test
	@Order(7)
	void anotherClientImplementationSubscribesThroughRedissonsShardedTopics() throws Exception {
		String lockKey = lockKey("interface");
		RedissonClient real = Redisson.create(config());
		RedissonClient onlyTheInterface = (RedissonClient) Proxy.newProxyInstance(getClass().getClassLoader(),
				new Class<?>[] { RedissonClient.class }, (proxy, method, arguments) -> {
					try {
						return method.invoke(real, arguments);
					}
					catch (InvocationTargetException ex) {
						throw ex.getCause();
					}
				});
		RedisLockEngine waiter = new RedisLockEngine(onlyTheInterface, "distlock", Duration.ofSeconds(2),
				this.lost::add, Duration.ofSeconds(30));
		this.engines.put(waiter, real);
		assertThat(waiter.announcements()).isInstanceOf(ShardedReleaseSignals.class);
		RedisLockEngine holder = engine(config());
		LockHandle held = holder.acquire(request("interface", Duration.ZERO));
		CompletableFuture<LockHandle> next = waitFor(waiter, "interface");
		awaitQueued(lockKey);
		awaitSubscribed(cluster().masterOf(lockKey), lockKey);
		handOver(held, next).release();
		assertThat(this.lost).as("no false alarm").isEmpty();
	}

	/**
	 * The README's ACL with its cluster grants, on a cluster with replicas: the client connects to every node,
	 * replicas included, and a lock's life (a wait, a hand-over, a release) goes by without one refusal on any node.
	 */
	@Test
	@Order(8)
	void theReadmeClusterGrantsAreRefusedNothingOnAnyNodeReplicasIncluded() throws Exception {
		Config restricted = leastPrivileged(RedisClusterIntegrationTests.CLUSTER_GRANTS);
		RedisStartupCheck.connect(restricted);
		RedisLockEngine holder = engine(restricted);
		RedisLockEngine waiter = engine(restricted);
		String lockKey = lockKey("grants");
		LockHandle held = holder.acquire(request("grants", Duration.ZERO));
		CompletableFuture<LockHandle> next = waitFor(waiter, "grants");
		awaitQueued(lockKey);
		handOver(held, next).release();
		for (RedisProcess node : cluster().nodes()) {
			try (RespClient client = node.client()) {
				assertThat((List<?>) client.call("ACL", "LOG")).as("refusals on port %d", node.port()).isEmpty();
			}
		}
		assertThat(this.lost).as("no false alarm").isEmpty();
	}

	/**
	 * A client of the distlock user with the README's ACL and the given grants, on every node (ACLs are per node: a
	 * cluster does not share them), whose refusal logs start empty.
	 */
	private static Config leastPrivileged(String grants) {
		List<Object> rules = new ArrayList<>(List.of("ACL", "SETUSER", LeastPrivilegeRedis.USER, "reset"));
		rules.addAll(LeastPrivilegeRedis.readmeRules());
		rules.addAll(List.of(grants.split(" ")));
		for (RedisProcess node : cluster().nodes()) {
			try (RespClient client = node.client()) {
				client.call(rules.toArray());
				client.call("ACL", "LOG", "RESET");
			}
		}
		Config restricted = config();
		restricted.setUsername(LeastPrivilegeRedis.USER);
		restricted.setPassword(LeastPrivilegeRedis.readmePassword());
		return restricted;
	}

	/** A lock held by one engine, with two threads of another waiting for it, the first subscribed on its master. */
	private record Contended(String key, LockHandle held, RedisLockEngine waiters, Future<LockHandle> first,
			Future<LockHandle> second, RedisProcess master) {
	}

	private Contended contended(String key) throws Exception {
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
	private void handOverToBoth(Contended lock, RedisProcess node) throws Exception {
		LockHandle firstHandle = handOver(lock.held(), lock.first());
		String engineChannel = lock.key() + ":released:" + engineId(lock.waiters(), firstHandle);
		await("the waiting engine's channel on port " + node.port(), () -> shardChannels(node, lock.key())
			.contains(engineChannel));
		handOver(firstHandle, lock.second()).release();
		assertThat(this.lost).as("no false alarm").isEmpty();
	}

	private static RedisProcess otherMasterThan(RedisProcess master) {
		return cluster().currentMasters().stream().filter((node) -> node != master).findFirst().orElseThrow();
	}

	/** Releases the held lock and expects the waiter to be handed it within {@link #HEARD_WITHIN}: heard. */
	private LockHandle handOver(LockHandle held, Future<LockHandle> next) throws Exception {
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
	private Future<LockHandle> waitOnThread(RedisLockEngine engine, String key) {
		return this.threads.submit(() -> engine.acquire(request(key, Duration.ofSeconds(60))));
	}

	/** The engine's id, which ends the name of the channel its hand-overs are announced on. */
	private static String engineId(RedisLockEngine engine, LockHandle held) {
		String holder = engine.heldLocks().stream().filter((view) -> view.token() == held.token()).findFirst()
			.orElseThrow().holder();
		return holder.substring(0, holder.indexOf(':'));
	}

	private static CompletableFuture<LockHandle> waitFor(RedisLockEngine engine, String key) {
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
	private static void awaitQueued(String lockKey) throws InterruptedException {
		await("a waiter queued on " + lockKey, () -> {
			try (RespClient client = cluster().clientFor(lockKey)) {
				String value = client.get(lockKey);
				return value != null && value.endsWith("|w");
			}
		});
	}

	/** Waits until the waiting engine hears both of the lock's shard channels on the node. */
	private static void awaitSubscribed(RedisProcess node, String lockKey) throws InterruptedException {
		awaitSubscribed(node, lockKey, 2);
	}

	private static void awaitSubscribed(RedisProcess node, String lockKey, int channels) throws InterruptedException {
		await(channels + " shard channel(s) of " + lockKey + " subscribed on port " + node.port(),
				() -> shardSubscriptions(node, lockKey) == channels);
	}

	/** How many of the lock's shard channels (releases, hand-overs to one engine) have a subscriber on the node. */
	private static int shardSubscriptions(RedisProcess node, String lockKey) {
		return shardChannels(node, lockKey).size();
	}

	/** The lock's shard channels that have a subscriber on the node. */
	private static List<String> shardChannels(RedisProcess node, String lockKey) {
		try (RespClient client = node.client()) {
			return ((List<?>) client.call("PUBSUB", "SHARDCHANNELS", lockKey + ":released*")).stream()
				.map(String::valueOf)
				.toList();
		}
	}

	private static void await(String what, BooleanSupplier condition) throws InterruptedException {
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
