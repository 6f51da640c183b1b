package io.github.distlock.etcd;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.options.LeaseOption;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.github.distlock.LockAcquisitionException;
import io.github.distlock.LockLostListener;
import io.github.distlock.LostLock;
import io.github.distlock.engine.LockHandle;
import io.github.distlock.engine.LockRequest;
import io.github.distlock.conformance.StallLosses;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import io.github.distlock.fixtures.etcd.EtcdMember;
import io.github.distlock.fixtures.etcd.TestEtcd;

/**
 * A cluster of three etcd members on loopback, one of them killed (SIGKILL) while a lock is held: the lock lives on,
 * locks can still be taken, and nothing is reported lost while the lease survives, even when the killed member is
 * the one the client talked to. Calls in flight when the leader dies move to the new leader within an election, and
 * a lock whose lease runs out while no leader can be elected is still reported lost at its deadline.
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

	/**
	 * What a call on the new leader may take beyond the engine's repeat: the repeated call's own round trips, the
	 * engine's pause after a quick failure, and threads waiting for one of two busy cores.
	 */
	private static final Duration MARGIN = Duration.ofMillis(500);

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
		return engine(client, this.lost::add);
	}

	private EtcdLockEngine engine(Client client, LockLostListener listener) {
		EtcdLockEngine engine = new EtcdLockEngine(client, EtcdLockEngine.DEFAULT_ROOT, LEASE_TTL,
				TestEtcd.ELECTION_TIMEOUT, listener);
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
		EtcdMember serving = servingMember(client);
		EtcdMember leader = leader();
		// The leader, unless the client talks to it (the next test kills that one): a new election on top.
		EtcdMember victim = (leader != serving) ? leader
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
		long lease = StoredQueues.queue(this.cluster, "cluster", "failover").get(0).getLease();
		EtcdMember serving = servingMember(client);

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

	/**
	 * The leader stops (SIGSTOP), then dies (SIGKILL), while an acquisition, a release, a renewal and a check are in
	 * flight through a follower. The follower holds a proposal or a read for its leader until its own request timeout,
	 * longer than the engine's call timeout; so each call must be sent again, to the new leader. Each returns within
	 * one election timeout (how long the engine gives one attempt) of the moment the survivors name a new leader, plus
	 * {@link #MARGIN}, well before the call timeout; none fails, and no lock is reported lost.
	 */
	@Test
	void callsInFlightWhenTheLeaderIsKilledMoveToTheNewLeaderWithinAnElection() throws Exception {
		long leaderId = leaderId();
		EtcdMember leader = this.cluster.memberWithId(leaderId);
		List<EtcdMember> followers = this.cluster.members().stream().filter((node) -> node != leader).toList();
		EtcdLockEngine engine = engine(track(this.cluster.newClientOf(followers)));
		LockHandle released = engine.acquire(request("released", LOCK_LEASE, Duration.ZERO));
		LockHandle extended = engine.acquire(request("extended", LOCK_LEASE, Duration.ZERO));
		LockHandle verified = engine.acquire(request("verified", LOCK_LEASE, Duration.ZERO));
		// An engine that has locked nothing yet: its first lock waits on the grant of its instance lease.
		EtcdLockEngine fresh = engine(track(this.cluster.newClientOf(followers)));

		leader.freeze();
		InFlightCall<LockHandle> acquisition = InFlightCall.start("acquisition",
				() -> engine.acquire(request("acquired", LOCK_LEASE, Duration.ZERO)));
		InFlightCall<LockHandle> first = InFlightCall.start("first acquisition (lease grant)",
				() -> fresh.acquire(request("first", LOCK_LEASE, Duration.ZERO)));
		InFlightCall<Boolean> release = InFlightCall.start("release", released::release);
		InFlightCall<Boolean> renewal = InFlightCall.start("renewal", () -> extended.extend(LOCK_LEASE));
		InFlightCall<Boolean> check = InFlightCall.start("check", verified::verify);
		List<InFlightCall<?>> calls = List.of(acquisition, first, release, renewal, check);
		assertThat(calls).as("no call is answered while the leader is stopped").noneMatch(InFlightCall::isDone);
		long killedAt = System.nanoTime();
		leader.kill();
		Duration newLeader = awaitNewLeader(followers, leaderId, killedAt);

		Duration bound = newLeader.plus(TestEtcd.ELECTION_TIMEOUT).plus(MARGIN);
		System.err.println("[leader kill] new leader named " + newLeader.toMillis() + " ms after the kill; bound "
				+ bound.toMillis() + " ms; " + String.join(", ", calls.stream().map((call) -> call.report(killedAt,
						EtcdLockEngine.CALL_TIMEOUT.multipliedBy(3))).toList()));
		assertThat(bound).as("the bound tells a repeat from the call timeout").isLessThan(EtcdLockEngine.CALL_TIMEOUT);
		LockHandle acquired = acquisition.result(Duration.ZERO);
		assertThat(acquired.token()).isGreaterThan(verified.token());
		LockHandle firstHeld = first.result(Duration.ZERO);
		assertThat(firstHeld.verify()).as("the fresh engine's lock, on its granted lease").isTrue();
		assertThat(release.result(Duration.ZERO)).as("released").isTrue();
		assertThat(renewal.result(Duration.ZERO)).as("renewed").isTrue();
		assertThat(check.result(Duration.ZERO)).as("confirmed").isTrue();
		for (InFlightCall<?> call : calls) {
			assertThat(call.tookSince(killedAt)).as("how long after the kill the " + call.name() + " returned")
				.isLessThanOrEqualTo(bound);
		}
		assertThat(this.lost).as("no false alarm").isEmpty();

		// The locks held through the failover are still confirmed, on the new leader.
		awaitConfirmations(engine, engine.statistics().renewals() + 3);
		assertThat(StoredQueues.queue(this.cluster, "cluster", "released")).as("the released lock's key is gone").isEmpty();
		assertThat(acquired.release()).isTrue();
		assertThat(firstHeld.release()).isTrue();
		assertThat(extended.release()).isTrue();
		assertThat(verified.release()).isTrue();
		assertThat(this.lost).isEmpty();
		assertThat(engine.statistics().lost()).isZero();
	}

	/**
	 * The leader dies and a second member stops, so the one member left can elect no leader: the calls the engine
	 * repeats never get an answer, and a lock with a one-second lease is reported lost at its deadline, within a
	 * watchdog tick, as unreachable (the instance's lease has not run out). Repeating calls never outlasts the lease.
	 */
	@Test
	void aShortLeaseIsStillLostAtItsDeadlineWhenNoNewLeaderCanBeElected() throws Exception {
		Duration lease = Duration.ofSeconds(1);
		EtcdMember leader = leader();
		List<EtcdMember> followers = this.cluster.members().stream().filter((node) -> node != leader).toList();
		EtcdMember survivor = followers.get(0);
		EtcdMember stopped = followers.get(1);
		StallLosses losses = new StallLosses(this.lost);
		EtcdLockEngine engine = engine(track(this.cluster.newClientOf(List.of(survivor))), losses);
		LockHandle held = engine.acquire(new LockRequest("cluster", "no-quorum", lease, Duration.ZERO, true, null));
		long grantedUntil = held.leaseDeadlineNanos();
		stopped.freeze();
		LostLock loss;
		try {
			leader.kill();
			loss = this.lost.poll(lease.toMillis() * 3, TimeUnit.MILLISECONDS);
		}
		finally {
			stopped.thaw();
		}
		losses.assertLostAtItsDeadline(loss, held, grantedUntil, lease);
		assertThat(this.lost.poll(300, TimeUnit.MILLISECONDS)).as("reported once").isNull();
	}

	/**
	 * Asks the surviving members, every 10 ms, which leader they know, until one names a leader other than the
	 * killed one.
	 * @return how long after {@code killedAt} that was
	 */
	private Duration awaitNewLeader(List<EtcdMember> survivors, long killedId, long killedAt)
			throws Exception {
		long deadline = killedAt + TimeUnit.SECONDS.toNanos(30);
		while (System.nanoTime() < deadline) {
			for (EtcdMember survivor : survivors) {
				try {
					long leaderId = this.cluster.admin().getMaintenanceClient().statusMember(survivor.clientUrl())
						.get(1, TimeUnit.SECONDS).getLeader();
					if (leaderId != 0 && leaderId != killedId) {
						return Duration.ofNanos(System.nanoTime() - killedAt);
					}
				}
				catch (ExecutionException | TimeoutException ex) {
					// Not answering yet: asked again.
				}
			}
			Thread.sleep(10);
		}
		throw new AssertionError("No member named a new leader within 30 s of the kill");
	}

	/** The member answering this client's calls: jetcd's default (gRPC's pick_first) sends them all to one. */
	private EtcdMember servingMember(Client client) throws Exception {
		long memberId = client.getKVClient().get(ByteSequence.from("/", StandardCharsets.UTF_8))
			.get(10, TimeUnit.SECONDS).getHeader().getMemberId();
		return this.cluster.memberWithId(memberId);
	}

	private EtcdMember leader() throws Exception {
		return this.cluster.memberWithId(leaderId());
	}

	private long leaderId() throws Exception {
		return this.cluster.admin().getMaintenanceClient().statusMember(this.cluster.endpoints().get(0))
			.get(10, TimeUnit.SECONDS).getLeader();
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
