package io.github.distlock.redis;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

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

import io.github.distlock.engine.LockHandle;
import io.github.distlock.fixtures.redis.LeastPrivilegeRedis;
import io.github.distlock.fixtures.redis.RedisCluster;
import io.github.distlock.fixtures.redis.SlotMigration;
import io.github.distlock.fixtures.redis.RedisClusterExtension;
import io.github.distlock.fixtures.redis.RedisProcess;
import io.github.distlock.fixtures.redis.RespClient;

import static org.assertj.core.api.Assertions.assertThat;
import io.github.distlock.fixtures.redis.RedisTestClients;

/**
 * A waiter's subscription to its lock's shard channels on a real Redis Cluster (three masters, a replica each), while
 * the lock stays contended the whole time, so that its line never empties: after the subscription was refused and is
 * allowed again, after its connection was killed, after the command connections were killed, after a coordinated
 * failover of the lock's master, and after the lock's slot moved to another master, the waiter is subscribed on the
 * lock's master and hears the next hand-over instead of polling for it.
 * Each hand-over must come within a second: heard ({@link ClusterWaitersTestSupport}).
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RedisClusterSubscriptionIntegrationTests extends ClusterWaitersTestSupport {

	@RegisterExtension
	static final RedisClusterExtension redis = RedisClusterExtension.masters(3, 1);

	@Override
	RedisCluster cluster() {
		return redis.cluster();
	}

	@Override
	Config config() {
		return RedisTestClients.clusterConfig(cluster(), Duration.ofSeconds(2));
	}
	@Test
	@Order(1)
	void aRefusedSubscriptionIsMadeOnceAllowedWhileTheLockStaysContended() throws Exception {
		String lockKey = lockKey("refused");
		// The documented ACL with the cluster grants but SSUBSCRIBE: the waiter's engine can lock, not subscribe.
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
		SlotMigration migration = cluster().migrate(slot, target);
		migration.moveKeys();
		migration.finish();
		// Both waiters: the first learns that the source dropped its subscription and subscribes on the target (or
		// polls shortly until it can), the second is subscribed there from the start.
		handOverToBoth(lock, target);
	}

	/**
	 * Why the engine opens its own connections for the locks' shard channels, shown on Redisson's own sharded topic
	 * alone: once a shard channel's slot has moved, Redisson 4.7 forgets the subscription, and a message published
	 * where the slot is now reaches nobody. When this fails, Redisson follows moved shard channels.
	 * <p>
	 * Asked to subscribe again, Redisson mostly times out waiting for one of the 50 locks its subscriptions share
	 * (by hand: attempts 1, 3, 9 and 20 s after the move, and a channel of another slot on the same lock), but not
	 * always: an earlier form of this test that asserted the time-out failed in 1 of 4 runs because the attempt
	 * succeeded. What Redisson does then is not asserted; the engine depends on neither.
	 */
	@Test
	@Order(5)
	void redissonsShardedTopicForgetsAChannelWhoseSlotMoved() throws Exception {
		RedissonClient client = Redisson.create(config());
		try {
			String lockKey = lockKey("redisson");
			String channel = lockKey + ":released";
			RShardedTopic topic = client.getShardedTopic(channel, StringCodec.INSTANCE);
			AtomicInteger heard = new AtomicInteger();
			topic.addListener(String.class, (name, message) -> heard.incrementAndGet());
			int slot = HashSlot.of(channel);
			RedisProcess source = cluster().masterOfSlot(slot);
			awaitSubscribed(source, lockKey, 1);
			RedisProcess target = otherMasterThan(source);
			SlotMigration migration = cluster().migrate(slot, target);
			migration.moveKeys();
			migration.finish();
			await("the client to forget the subscription", () -> topic.countListeners() == 0);

			try (RespClient publisher = target.client()) {
				assertThat((Long) publisher.call("SPUBLISH", channel, "after the move"))
					.as("subscribers where the slot is now").isZero();
			}
			assertThat(heard).as("heard by the topic's listener").hasValue(0);
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
	 * The documented ACL with its cluster grants, on a cluster with replicas: the client connects to every node,
	 * replicas included, and a lock's life (a wait, a hand-over, a release) goes by without one refusal on any node.
	 */
	@Test
	@Order(8)
	void theDocumentedClusterGrantsAreRefusedNothingOnAnyNodeReplicasIncluded() throws Exception {
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
	 * A lock's channels given up and subscribed again by the next waiter while the master's pub/sub connection is
	 * still opening (held up by {@code CLIENT PAUSE}, which holds the connection's {@code CLIENT SETNAME}): the
	 * server ends up subscribed, and each announcement is heard once, by the subscription of now. Run out of order
	 * (a plain future runs its dependents the last first), the given-up subscription's late {@code SSUBSCRIBE} and
	 * listener would stand beside the new one, and every announcement would be heard twice. Redisson's connection
	 * future happened to run them in order, so this passes without the ordered steps too: it guards the outcome.
	 */
	@Test
	@Order(9)
	void aChannelGivenUpAndSubscribedAgainWhileItsConnectionOpensIsHeardOnceByTheNewSubscription() throws Exception {
		Config config = config();
		config.useClusterServers().setClientName("distlock-subscription-order");
		RedissonClient client = Redisson.create(config);
		String lockKey = lockKey("reopened");
		RedisProcess master = cluster().masterOf(lockKey);
		String witnessKey = lockKeyOn(master, "witness");
		ReleaseSignals.Signal signal = new ReleaseSignals.Signal();
		ReleaseSignals.Signal witness = new ReleaseSignals.Signal();
		Map<String, ReleaseSignals.Signal> signals = Map.of(lockKey, signal, witnessKey, witness);
		ReleaseAnnouncements announcements = ShardChannelSubscriptions.of(client, "ordering", signals::get);
		try {
			assertThat(announcements).isInstanceOf(ShardChannelSubscriptions.class);
			try (RespClient admin = master.client()) {
				admin.call("CLIENT", "PAUSE", "1500", "ALL");
			}
			ReleaseAnnouncements.Subscription givenUp = announcements.subscribe(lockKey);
			givenUp.close();
			ReleaseAnnouncements.Subscription again = announcements.subscribe(lockKey);
			ReleaseAnnouncements.Subscription witnessing = announcements.subscribe(witnessKey);
			assertThat(again.ready()).as("held up by the pause").isNotDone();
			again.ready().get(10, TimeUnit.SECONDS);
			// Redisson sends a connection's pub/sub commands one at a time, each after the answer to the one before:
			// the witness's, asked for last, is answered after every command on the lock's channels.
			witnessing.ready().get(10, TimeUnit.SECONDS);
			assertThat(shardChannels(master, lockKey)).as("subscribed on the server")
				.contains(announcements.channel(lockKey));

			// Both on the lock's channel: Redisson hands one channel's messages to its listeners in the order published,
			// each message to every listener before the next, but two channels' on two threads in no order. The
			// witness's announcement names its own lock, which is what a listener looks up.
			try (RespClient publisher = master.client()) {
				publisher.call("SPUBLISH", announcements.channel(lockKey), "0 - " + lockKey);
				publisher.call("SPUBLISH", announcements.channel(lockKey), "0 - " + witnessKey);
			}
			await("the witness's announcement heard", () -> witness.releases() >= 1);
			assertThat(witness.releases()).as("the witness heard once").isEqualTo(1);
			assertThat(signal.releases()).as("heard once, by the new subscription alone").isEqualTo(1);
			assertThat(again.dropped()).isFalse();
		}
		finally {
			announcements.close();
			client.shutdown(0, 2, TimeUnit.SECONDS);
		}
	}

	/** The key of a lock whose slot the given master serves. */
	private String lockKeyOn(RedisProcess master, String prefix) {
		for (int i = 0;; i++) {
			String candidate = lockKey(prefix + "-" + i);
			if (cluster().masterOf(candidate) == master) {
				return candidate;
			}
		}
	}

	/**
	 * A client of the distlock user with the documented ACL and the given grants, on every node (ACLs are per node: a
	 * cluster does not share them), whose refusal logs start empty.
	 */
	private Config leastPrivileged(String grants) {
		List<Object> rules = new ArrayList<>(List.of("ACL", "SETUSER", LeastPrivilegeRedis.USER, "reset"));
		rules.addAll(LeastPrivilegeRedis.documentedRules());
		rules.addAll(List.of(grants.split(" ")));
		for (RedisProcess node : cluster().nodes()) {
			try (RespClient client = node.client()) {
				client.call(rules.toArray());
				client.call("ACL", "LOG", "RESET");
			}
		}
		Config restricted = config();
		restricted.setUsername(LeastPrivilegeRedis.USER);
		restricted.setPassword(LeastPrivilegeRedis.documentedPassword());
		return restricted;
	}

}
