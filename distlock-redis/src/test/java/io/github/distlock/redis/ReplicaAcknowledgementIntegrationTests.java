package io.github.distlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;

import io.github.distlock.LockAcquisitionException;
import io.github.distlock.LockLostListener;
import io.github.distlock.LockStoreException;
import io.github.distlock.LostLock;
import io.github.distlock.engine.LockHandle;
import io.github.distlock.engine.LockRequest;
import io.github.distlock.fixtures.redis.LoopbackFirewall;
import io.github.distlock.fixtures.redis.RedisProcess;
import io.github.distlock.fixtures.redis.RedisServers;
import io.github.distlock.fixtures.redis.RespClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import io.github.distlock.fixtures.redis.RedisTestClients;

/**
 * {@code distlock.redis.min-replicas-acked} on a real master and replica, the replication link cut with iptables on
 * loopback (the master's packets to the replica's end of the link dropped): the seed notes' failover loss (a lock granted on the master, the master dying before its replica has it,
 * the promoted replica granting it again) happens without the option and is prevented with it, the first grant
 * failing instead; and no replica connected never counts as enough.
 */
class ReplicaAcknowledgementIntegrationTests {

	private static final ReplicaAcknowledgement ONE_REPLICA = new ReplicaAcknowledgement(1, Duration.ofMillis(500));

	private RedisProcess master;

	private RedisProcess replica;

	private final List<RedissonClient> clients = new ArrayList<>();

	private final List<RedisLockEngine> engines = new ArrayList<>();

	@BeforeEach
	void startMasterAndReplica() {
		// Without the master's default 5 s wait for more replicas before a full sync.
		this.master = RedisServers.startProcess(List.of("--repl-diskless-sync-delay", "0"));
		this.replica = RedisServers.startProcess(List.of("--replicaof", "127.0.0.1", String.valueOf(this.master.port())));
		await("the replica in sync with the master", () -> {
			try (RespClient client = this.replica.client()) {
				return String.valueOf(client.call("INFO", "replication")).contains("master_link_status:up");
			}
		});
	}

	@AfterEach
	void stop() {
		this.engines.forEach(RedisLockEngine::close);
		this.clients.forEach((client) -> client.shutdown(0, 2, TimeUnit.SECONDS));
		this.replica.close();
		this.master.close();
	}

	private RedisLockEngine engine(RedisProcess server, ReplicaAcknowledgement replicas) {
		return engine(server, replicas, (lost) -> {
		});
	}

	private RedisLockEngine engine(RedisProcess server, ReplicaAcknowledgement replicas, LockLostListener listener) {
		RedissonClient client = RedisTestClients.create(server, Duration.ofSeconds(2));
		RedisLockEngine engine = new RedisLockEngine(client, "distlock", null, listener,
				RedisLockEngine.DEFAULT_MAX_POLL, replicas);
		this.clients.add(client);
		this.engines.add(engine);
		return engine;
	}

	private static LockRequest request() {
		return new LockRequest("stock", "sku-1", Duration.ofSeconds(30), Duration.ZERO, true, null);
	}

	@Test
	void aLockTheReplicaHasIsGranted() throws Exception {
		LockHandle handle = engine(this.master, ONE_REPLICA).acquire(request());
		try (RespClient client = this.replica.client()) {
			// Read at once: the acquisition returned only after the replica acknowledged the lock.
			assertThat(client.get("distlock:{stock:sku-1}")).as("on the replica").endsWith("|" + handle.token());
		}
		assertThat(handle.release()).isTrue();
	}

	/**
	 * The token floor travels with the acknowledged grant, so the promoted replica goes on above the old master's
	 * tokens although they are ahead of its own clock: the old master's floor is set an hour ahead, as a master whose
	 * clock runs an hour fast would leave it, and the replica's clock is this machine's.
	 */
	@Test
	void aPromotedReplicaIssuesTokensAboveTheOldMastersEvenWithItsClockBehind() throws Exception {
		long ahead;
		try (RespClient client = this.master.client()) {
			@SuppressWarnings("unchecked")
			List<String> time = (List<String>) client.call("TIME");
			ahead = Long.parseLong(time.get(0)) * 1_000_000 + Long.parseLong(time.get(1)) + 3_600_000_000L;
			client.call("SET", "distlock:token", Long.toString(ahead), "PX", "10000");
		}
		LockHandle onOldMaster = engine(this.master, ONE_REPLICA).acquire(request());
		assertThat(onOldMaster.token()).isGreaterThan(ahead);
		try (RespClient client = this.replica.client()) {
			// Read at once: the acquisition returned only after the replica acknowledged the grant and its floor.
			assertThat(client.get("distlock:token")).as("the floor, on the replica")
				.isEqualTo(Long.toString(onOldMaster.token()));
		}
		this.master.kill();
		try (RespClient client = this.replica.client()) {
			client.call("REPLICAOF", "NO", "ONE");
		}
		LockHandle onNewMaster = engine(this.replica, ReplicaAcknowledgement.NONE)
			.acquire(new LockRequest("stock", "sku-2", Duration.ofSeconds(30), Duration.ZERO, true, null));
		assertThat(onNewMaster.token()).as("above every token of the old master, not the new master's clock")
			.isGreaterThan(onOldMaster.token());
		assertThat(onNewMaster.release()).isTrue();
	}

	@Test
	void withTheLinkCutTheDoubleGrantHappensWithoutTheOptionAndTheFirstGrantFailsWithIt() throws Exception {
		try (LoopbackFirewall firewall = new LoopbackFirewall().dropFromTo(this.master.port(), replicaLinkPort())) {
			// With the option: the grant no replica has is released, and the caller is told why.
			assertThatExceptionOfType(LockStoreException.class)
				.isThrownBy(() -> engine(this.master, ONE_REPLICA).acquire(request()))
				.satisfies((ex) -> assertThat(ex.getStoreError()).isEqualTo("NOREPLICAS"))
				.withMessageContaining("only 0 of the 1 replica(s)")
				.withMessageContaining("was released");
			try (RespClient client = this.master.client()) {
				assertThat(client.get("distlock:{stock:sku-1}")).as("released on the master").isNull();
			}

			// Without it: granted on the master alone; the master dies, the replica is promoted without the lock.
			LockHandle first = engine(this.master, ReplicaAcknowledgement.NONE).acquire(request());
			this.master.kill();
			try (RespClient client = this.replica.client()) {
				client.call("REPLICAOF", "NO", "ONE");
			}
			LockHandle second = engine(this.replica, ReplicaAcknowledgement.NONE).acquire(request());
			assertThat(first.isLost()).as("the first holder still believes it holds the lock").isFalse();
			assertThat(second.token()).as("the double grant the option prevents").isPositive();
			assertThat(second.release()).isTrue();
		}
	}

	@Test
	void noReplicaConnectedIsNeverEnough() throws Exception {
		detachReplica();
		assertThatExceptionOfType(LockStoreException.class)
			.isThrownBy(() -> engine(this.master, ONE_REPLICA).acquire(request()))
			.withMessageContaining("only 0 of the 1 replica(s)");
		try (RespClient client = this.master.client()) {
			assertThat(client.get("distlock:{stock:sku-1}")).isNull();
		}
	}

	/**
	 * A grant the replicas never confirm is released and the call fails; the caller never had the lock, so nothing
	 * is reported lost, even when the grant is gone by the time it is released (here its lease, shorter than the
	 * wait for the replicas, ran out). A loss report there would be a false alarm: it would speak of a lock nobody
	 * held, and the torture run behind Sentinel counted them as losses no acquisition explains.
	 */
	@Test
	void aGrantLostWhileAwaitingAcknowledgementIsNoLossOfTheCallers() throws Exception {
		detachReplica();
		List<LostLock> lost = new CopyOnWriteArrayList<>();
		RedisLockEngine engine = engine(this.master, ONE_REPLICA, lost::add);
		// No renewal, and a lease shorter than the 500 ms the engine waits for the replica.
		LockRequest request = new LockRequest("stock", "sku-2", Duration.ofMillis(100), Duration.ZERO, false, null);
		// Gone by the time it is confirmed: the call fails as a lock not acquired.
		assertThatExceptionOfType(LockAcquisitionException.class).isThrownBy(() -> engine.acquire(request));
		assertThat(lost).as("losses reported for a lock the caller never got").isEmpty();
		assertThat(engine.heldCount()).isZero();
	}

	/** Makes the replica a master of its own, and waits until the master sees no replica. */
	private void detachReplica() {
		try (RespClient client = this.replica.client()) {
			client.call("REPLICAOF", "NO", "ONE");
		}
		await("the master to see no replica", () -> {
			try (RespClient client = this.master.client()) {
				return String.valueOf(client.call("INFO", "replication")).contains("connected_slaves:0");
			}
		});
	}

	/** The replica's end of its link to the master, which the master lists among its clients. */
	private int replicaLinkPort() {
		try (RespClient client = this.master.client()) {
			String replicas = String.valueOf(client.call("CLIENT", "LIST", "TYPE", "replica"));
			Matcher address = Pattern.compile("addr=127\\.0\\.0\\.1:(\\d+)").matcher(replicas);
			assertThat(address.find()).as("the replica's connection in " + replicas).isTrue();
			return Integer.parseInt(address.group(1));
		}
	}

	private static void await(String what, BooleanSupplier condition) {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
		while (!condition.getAsBoolean()) {
			assertThat(System.nanoTime()).as(what).isLessThan(deadline);
			try {
				Thread.sleep(20);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException(ex);
			}
		}
	}

}
