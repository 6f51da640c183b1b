package io.github.distlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.redisson.api.RedissonClient;
import org.slf4j.LoggerFactory;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;

import io.github.distlock.LockAcquisitionException;
import io.github.distlock.LostLock;
import io.github.distlock.engine.LockEngineStatistics;
import io.github.distlock.engine.LockHandle;
import io.github.distlock.engine.LockRequest;
import io.github.distlock.fixtures.redis.RedisCluster;
import io.github.distlock.fixtures.redis.RedisClusterExtension;
import io.github.distlock.fixtures.redis.RedisProcess;
import io.github.distlock.fixtures.redis.RespClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import io.github.distlock.fixtures.redis.RedisTestClients;

/**
 * A held lock through a failover of its master on a real Redis Cluster of three masters with a replica each: kept,
 * and renewed on the new master, when the replica takes over in a coordinated failover; kept or reported lost, never
 * silently gone, when the master is killed. The fence holds either way.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RedisClusterFailoverIntegrationTests {

	@RegisterExtension
	static final RedisClusterExtension redis = RedisClusterExtension.masters(3, 1);

	private final BlockingQueue<LostLock> lost = new LinkedBlockingQueue<>();

	private final List<RedissonClient> clients = new ArrayList<>();

	private final List<RedisLockEngine> engines = new ArrayList<>();

	@AfterEach
	void stop() {
		this.engines.forEach(RedisLockEngine::close);
		this.clients.forEach((client) -> client.shutdown(0, 2, TimeUnit.SECONDS));
	}

	private static RedisCluster cluster() {
		return redis.cluster();
	}

	private RedisLockEngine engine() {
		RedissonClient client = RedisTestClients.create(cluster(), Duration.ofSeconds(3));
		// A command timeout well under the lease, so that calls to a master that is gone give up in time.
		RedisLockEngine engine = new RedisLockEngine(client, "distlock", Duration.ofMillis(500), this.lost::add);
		this.clients.add(client);
		this.engines.add(engine);
		return engine;
	}

	private static LockRequest request(String key, Duration lease) {
		return new LockRequest("failover", key, lease, Duration.ZERO, true, null);
	}

	private static String lockKey(String key) {
		return new RedisLockKeys("distlock").lockKey("failover", key);
	}

	@Test
	@Order(1)
	void aCoordinatedFailoverKeepsTheLockAndItsRenewalsOnTheNewMaster() throws Exception {
		RedisLockEngine engine = engine();
		Duration lease = Duration.ofSeconds(2);
		LockHandle held = engine.acquire(request("coordinated", lease));
		RedisProcess master = cluster().masterOf(lockKey("coordinated"));
		RedisProcess replica = cluster().replicaOf(master);
		cluster().awaitReplicated(replica, lockKey("coordinated"));

		cluster().failover(replica);
		assertThat(cluster().masterOf(lockKey("coordinated"))).isSameAs(replica);
		awaitRenewals(engine.statistics(), 3);

		assertThat(this.lost).as("no false alarm").isEmpty();
		try (RespClient client = replica.client()) {
			assertThat(client.get(lockKey("coordinated"))).as("the lock, on the new master").endsWith("|" + held.token());
			assertThat((Long) client.call("PTTL", lockKey("coordinated"))).as("renewed there")
				.isGreaterThan(lease.toMillis() / 3);
		}
		assertThat(held.verify()).isTrue();
		assertThatExceptionOfType(LockAcquisitionException.class).as("still held: nobody else gets it")
			.isThrownBy(() -> engine().acquire(request("coordinated", lease)));
		assertThat(held.release()).isTrue();
		assertThat(cluster().keys("distlock:{failover:coordinated}*")).isEmpty();
	}

	@Test
	@Order(2)
	void aKilledMastersLockIsKeptOrReportedLostNeverSilentlyGone() throws Exception {
		RedisLockEngine engine = engine();
		Duration lease = Duration.ofSeconds(4);
		LockHandle held = engine.acquire(request("killed", lease));
		RedisProcess master = cluster().masterOf(lockKey("killed"));
		RedisProcess replica = cluster().replicaOf(master);
		cluster().awaitReplicated(replica, lockKey("killed"));

		master.kill();
		cluster().awaitPromoted(replica);
		// Until past the lease: by then a lock the new master does not have, or could not renew, has been reported.
		LostLock loss = this.lost.poll(lease.toMillis() + 1000, TimeUnit.MILLISECONDS);

		LockHandle next;
		if (loss != null) {
			assertThat(loss.key()).isEqualTo("killed");
			assertThat(held.isLost()).isTrue();
			next = engine().acquire(request("killed", lease));
			assertThat(next.token()).as("the fence holds: a later holder's token is greater").isGreaterThan(
					held.token());
		}
		else {
			assertThat(this.lost).as("kept: no loss reported").isEmpty();
			try (RespClient client = replica.client()) {
				assertThat(client.get(lockKey("killed"))).as("kept: on the new master").endsWith("|" + held.token());
			}
			assertThat(held.verify()).isTrue();
			assertThatExceptionOfType(LockAcquisitionException.class).as("kept: nobody else gets it")
				.isThrownBy(() -> engine().acquire(request("killed", lease)));
			next = held;
		}
		assertThat(next.release()).isTrue();
		assertThat(cluster().keys("distlock:{failover:killed}*")).isEmpty();
	}

	/**
	 * A master is killed while one instance holds short-leased locks on every master and a second instance keeps
	 * trying to take each of them. The locks of the masters nobody touched keep renewing, none lost and none taken;
	 * the killed master's are kept on the promoted replica or reported lost; and the second instance never gets a lock
	 * before its first holder was told of its loss (the holder's clock decides when the lease ran out, not the answers
	 * of a master that is gone).
	 */
	@Test
	@Order(3)
	void aKilledMasterCostsTheOtherMastersLocksNothingAndNoLockIsTakenBeforeItsHolderIsTold() throws Exception {
		Map<String, Long> reportedAt = new ConcurrentHashMap<>();
		RedissonClient client = RedisTestClients.create(cluster(), Duration.ofSeconds(2));
		this.clients.add(client);
		RedisLockEngine holder = new RedisLockEngine(client, "distlock", Duration.ofSeconds(2), (loss) -> {
			reportedAt.putIfAbsent(loss.key(), System.nanoTime());
			this.lost.add(loss);
		});
		this.engines.add(holder);
		RedisLockEngine taker = engine();
		Duration lease = Duration.ofSeconds(3);
		RedisProcess killed = cluster().currentMasters().stream().filter(RedisClusterFailoverIntegrationTests::hasReplica)
			.findFirst().orElseThrow();
		RedisProcess replica = cluster().replicaOf(killed);
		Map<String, LockHandle> held = new HashMap<>();
		Map<String, RedisProcess> masterOfKey = new HashMap<>();
		for (int i = 0; i < 30; i++) {
			String key = "short-" + i;
			held.put(key, holder.acquire(request(key, lease)));
			masterOfKey.put(key, cluster().masterOf(lockKey(key)));
		}
		for (String key : held.keySet()) {
			if (masterOfKey.get(key) == killed) {
				cluster().awaitReplicated(replica, lockKey(key));
			}
		}
		Map<String, Long> takenAt = new HashMap<>();
		// Redisson's decoder fails on a reply whose calls all carry one exception: what a renewal batch spanning
		// every master got when one master's part failed (before, the renewals were sent as one batch).
		ListAppender<ILoggingEvent> decoderErrors = new ListAppender<>();
		Logger redissonErrors = (Logger) LoggerFactory.getLogger("org.redisson.client.handler.ErrorsLoggingHandler");
		decoderErrors.start();
		redissonErrors.addAppender(decoderErrors);
		killed.kill();
		long killedAt = System.nanoTime();
		// Two leases after the kill: each lock has by then been renewed on an answering master, or run out.
		long until = killedAt + lease.toNanos() * 2;
		while (System.nanoTime() - until < 0) {
			for (String key : held.keySet()) {
				if (takenAt.containsKey(key)) {
					continue;
				}
				try {
					LockHandle taken = taker.acquire(request(key, lease));
					takenAt.put(key, System.nanoTime());
					assertThat(taken.token()).as("a later holder's token").isGreaterThan(held.get(key).token());
					taken.release();
				}
				catch (LockAcquisitionException busy) {
					// Still held: the usual outcome.
				}
			}
			// Polling the lock as a second instance would, each key every round.
			Thread.sleep(20);
		}
		for (Map.Entry<String, LockHandle> lock : held.entrySet()) {
			String key = lock.getKey();
			if (masterOfKey.get(key) != killed) {
				assertThat(reportedAt).as("a lock of a master that answered throughout").doesNotContainKey(key);
				assertThat(takenAt).as("a lock of a master that answered throughout").doesNotContainKey(key);
				assertThat(lock.getValue().release()).as(key).isTrue();
			}
			else if (takenAt.containsKey(key)) {
				assertThat(reportedAt).as("the holder of %s, taken by another", key).containsKey(key);
				assertThat(reportedAt.get(key)).as("when the holder of %s was told, against when it was taken", key)
					.isLessThan(takenAt.get(key));
			}
			else if (!reportedAt.containsKey(key)) {
				assertThat(lock.getValue().verify()).as("kept on the promoted replica: " + key).isTrue();
				assertThat(lock.getValue().release()).isTrue();
			}
		}
		assertThat(holder.renewalLag()).as("the watchdog's lag after the failover").isLessThan(lease.dividedBy(3));
		redissonErrors.detachAppender(decoderErrors);
		assertThat(decoderErrors.list).as("replies Redisson could not decode").isEmpty();
	}

	private static boolean hasReplica(RedisProcess master) {
		try {
			cluster().replicaOf(master);
			return true;
		}
		catch (IllegalStateException ex) {
			return false;
		}
	}

	private static void awaitRenewals(LockEngineStatistics statistics, long more) throws InterruptedException {
		long target = statistics.renewals() + more;
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
		while (statistics.renewals() < target && System.nanoTime() < deadline) {
			Thread.sleep(10);
		}
		assertThat(statistics.renewals()).as("renewals").isGreaterThanOrEqualTo(target);
	}

}
