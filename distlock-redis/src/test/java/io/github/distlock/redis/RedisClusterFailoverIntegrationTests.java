package io.github.distlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.redisson.api.RedissonClient;

import io.github.distlock.LockAcquisitionException;
import io.github.distlock.LostLock;
import io.github.distlock.engine.LockEngineStatistics;
import io.github.distlock.engine.LockHandle;
import io.github.distlock.engine.LockRequest;
import io.github.distlock.test.RedisCluster;
import io.github.distlock.test.RedisClusterExtension;
import io.github.distlock.test.RedisProcess;
import io.github.distlock.test.RespClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

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

	private static void awaitRenewals(LockEngineStatistics statistics, long more) throws InterruptedException {
		long target = statistics.renewals() + more;
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
		while (statistics.renewals() < target && System.nanoTime() < deadline) {
			Thread.sleep(10);
		}
		assertThat(statistics.renewals()).as("renewals").isGreaterThanOrEqualTo(target);
	}

}
