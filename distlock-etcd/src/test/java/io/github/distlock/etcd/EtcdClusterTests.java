package io.github.distlock.etcd;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.options.LeaseOption;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.github.distlock.LockAcquisitionException;
import io.github.distlock.LostLock;
import io.github.distlock.engine.LockHandle;
import io.github.distlock.engine.LockRequest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * A cluster of three etcd members on loopback, one of them killed (SIGKILL) while a lock is held: the lock lives on,
 * locks can still be taken, and nothing is reported lost while the lease survives, even when the killed member is
 * the one the client talked to.
 */
class EtcdClusterTests {

	/** Room for a failover (a new connection, maybe a new leader) well within the lease's time to live. */
	private static final Duration LEASE_TTL = Duration.ofSeconds(3);

	/**
	 * Confirmed every second, so that confirmations count the time passed since the kill. The lock is reported lost
	 * when its lease passes unconfirmed, so the client's move to another member must fit in it: CI once saw that move
	 * outlast the second a 1.5 s lease left after its first confirmation.
	 */
	private static final Duration LOCK_LEASE = Duration.ofSeconds(3);

	private TestEtcd cluster;

	private final BlockingQueue<LostLock> lost = new LinkedBlockingQueue<>();

	private final List<EtcdLockEngine> engines = new ArrayList<>();

	private final List<Client> clients = new ArrayList<>();

	@BeforeEach
	void startCluster() throws Exception {
		this.cluster = TestEtcd.cluster(3);
	}

	@AfterEach
	void stopCluster() {
		this.engines.forEach(EtcdLockEngine::close);
		this.clients.forEach(Client::close);
		if (this.cluster != null) {
			this.cluster.close();
		}
	}

	private Client track(Client client) {
		this.clients.add(client);
		return client;
	}

	private EtcdLockEngine engine(Client client) {
		EtcdLockEngine engine = new EtcdLockEngine(client, EtcdLockEngine.DEFAULT_ROOT, LEASE_TTL, this.lost::add);
		this.engines.add(engine);
		return engine;
	}

	private static LockRequest request(String key, Duration lease, Duration wait) {
		return new LockRequest("cluster", key, lease, wait, true, null);
	}

	@Test
	void aLockSurvivesTheLossOfAMemberAndTheNextLockGetsALargerToken() throws Exception {
		Client client = track(this.cluster.newClient());
		EtcdLockEngine holder = engine(client);
		LockHandle held = holder.acquire(request("survivor", LOCK_LEASE, Duration.ZERO));
		TestEtcd.Node serving = servingMember(client);
		TestEtcd.Node leader = leader();
		// The leader, unless the client talks to it (the next test kills that one): a new election on top.
		TestEtcd.Node victim = (leader != serving) ? leader
				: this.cluster.members().stream().filter((node) -> node != serving).findFirst().orElseThrow();

		victim.kill();
		long renewalsAtKill = holder.statistics().renewals();
		awaitConfirmations(holder, renewalsAtKill + 4);

		assertThat(this.lost).isEmpty();
		assertThat(held.isLost()).isFalse();
		assertThat(held.verify()).isTrue();
		EtcdLockEngine other = engine(track(this.cluster.newClientOfRunningMembers()));
		assertThatExceptionOfType(LockAcquisitionException.class)
			.isThrownBy(() -> other.acquire(request("survivor", Duration.ofSeconds(10), Duration.ZERO)))
			.satisfies((ex) -> assertThat(ex.isStoreUnavailable()).isFalse());
		LockHandle next = other.acquire(request("after-kill", Duration.ofSeconds(10), Duration.ofSeconds(10)));
		assertThat(next.token()).isGreaterThan(held.token());
		assertThat(held.release()).isTrue();
		LockHandle taken = other.acquire(request("survivor", Duration.ofSeconds(10), Duration.ofSeconds(10)));
		assertThat(taken.token()).isGreaterThan(next.token());
		assertThat(taken.release()).isTrue();
		assertThat(next.release()).isTrue();
		assertThat(this.lost).isEmpty();
	}

	@Test
	void killingTheMemberTheClientTalksToIsNoFalseAlarmWhileTheLeaseSurvives() throws Exception {
		Client client = track(this.cluster.newClient());
		EtcdLockEngine engine = engine(client);
		LockHandle held = engine.acquire(request("failover", LOCK_LEASE, Duration.ZERO));
		long lease = this.cluster.queue("cluster", "failover").get(0).getLease();
		TestEtcd.Node serving = servingMember(client);

		serving.kill();
		long renewalsAtKill = engine.statistics().renewals();
		// Five more confirmations: five seconds, more than the lease's time to live, on other members.
		awaitConfirmations(engine, renewalsAtKill + 5);

		assertThat(servingMember(client)).as("the client moved to another member").isNotSameAs(serving);
		try (Client survivors = this.cluster.newClientOfRunningMembers()) {
			assertThat(survivors.getLeaseClient().timeToLive(lease, LeaseOption.DEFAULT).get(10, TimeUnit.SECONDS)
				.getTTL()).as("the lease was kept alive through another member").isPositive();
		}
		assertThat(this.lost).as("no false alarm").isEmpty();
		assertThat(held.isLost()).isFalse();
		assertThat(held.verify()).isTrue();
		assertThat(held.release()).isTrue();
		assertThat(engine.acquire(request("failover", Duration.ofSeconds(10), Duration.ZERO)).release()).isTrue();
		assertThat(engine.statistics().lost()).isZero();
	}

	/** The member answering this client's calls: jetcd's default (gRPC's pick_first) sends them all to one. */
	private TestEtcd.Node servingMember(Client client) throws Exception {
		long memberId = client.getKVClient().get(ByteSequence.from("/", StandardCharsets.UTF_8))
			.get(10, TimeUnit.SECONDS).getHeader().getMemberId();
		return this.cluster.memberWithId(memberId);
	}

	private TestEtcd.Node leader() throws Exception {
		long leaderId = this.cluster.admin().getMaintenanceClient().statusMember(this.cluster.endpoints().get(0))
			.get(10, TimeUnit.SECONDS).getLeader();
		return this.cluster.memberWithId(leaderId);
	}

	/** Waits for the engine's confirmations to reach a count; fails at once on a reported loss. */
	private void awaitConfirmations(EtcdLockEngine engine, long count) throws InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
		while (engine.statistics().renewals() < count) {
			assertThat(this.lost).as("no loss reported while the lease lives").isEmpty();
			if (System.nanoTime() > deadline) {
				throw new AssertionError(
						"Only " + engine.statistics().renewals() + " confirmations, expected " + count);
			}
			Thread.sleep(20);
		}
	}

}
