package io.github.distlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import io.github.distlock.LostLock;
import io.github.distlock.fixtures.redis.LeastPrivilegeRedis;
import io.github.distlock.fixtures.redis.RedisTestClients;
import io.github.distlock.fixtures.redis.RespClient;
import io.github.distlock.leader.LeaderElection;
import io.github.distlock.leader.Leadership;
import io.github.distlock.leader.LeadershipListener;
import io.github.distlock.leader.LeadershipListener.Revocation;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Leader election on the Redis engine, two instances (each an engine and a client of its own, as ACL users of their
 * own) on a real redis-server: a leader is revoked before the other is granted, whether it yields or has its renewals
 * refused until its lease runs out (the conformance kit has the cases every engine shares).
 */
class RedisLeaderElectionIntegrationTests {

	private static final Duration TIMEOUT = Duration.ofSeconds(2);

	/** The second instance's ACL user, with the same documented rules as the first's. */
	private static final String OTHER_USER = "distlock-other";

	private static final Duration RETRY_PAUSE = Duration.ofMillis(200);

	private static LeastPrivilegeRedis redis;

	private final BlockingQueue<Event> events = new LinkedBlockingQueue<>();

	private final BlockingQueue<LostLock> lost = new LinkedBlockingQueue<>();

	private final List<AutoCloseable> resources = new ArrayList<>();

	@BeforeAll
	static void start() {
		redis = LeastPrivilegeRedis.start();
		try (RespClient admin = redis.client()) {
			List<Object> command = new ArrayList<>(List.of("ACL", "SETUSER", OTHER_USER, "reset"));
			command.addAll(LeastPrivilegeRedis.documentedRules());
			admin.call(command.toArray());
		}
	}

	@AfterAll
	static void stop() {
		redis.close();
	}

	@AfterEach
	void closeAll() throws Exception {
		for (int i = this.resources.size() - 1; i >= 0; i--) {
			this.resources.get(i).close();
		}
		redis.grant(LeastPrivilegeRedis.documentedRules());
	}

	/** What a listener heard, and when by this machine's monotonic clock. */
	record Event(String instance, String what, long epoch, @Nullable Revocation reason, long atNanos) {

		@Override
		public String toString() {
			return this.what + " " + this.instance + ((this.reason != null) ? " (" + this.reason + ")" : "");
		}

	}

	/** An instance's engine, on a client of its own that connects as the user, closed after the test. */
	private RedisLockEngine engine(String user) {
		Config config = RedisTestClients.config(redis.url(), TIMEOUT);
		config.setUsername(user);
		config.setPassword(redis.password());
		RedissonClient client = Redisson.create(config);
		this.resources.add(() -> client.shutdown(0, 2, TimeUnit.SECONDS));
		RedisLockEngine engine = new RedisLockEngine(client, "distlock", TIMEOUT, this.lost::add);
		this.resources.add(engine);
		return engine;
	}

	private LeaderElection candidate(String instance, String user, Duration lease) {
		LeaderElection election = new LeaderElection(engine(user), "reports", lease, RETRY_PAUSE,
				new LeadershipListener() {

					@Override
					public void granted(Leadership leadership) {
						RedisLeaderElectionIntegrationTests.this.events
							.add(new Event(instance, "granted", leadership.epoch(), null, System.nanoTime()));
					}

					@Override
					public void revoked(Leadership leadership, Revocation reason) {
						RedisLeaderElectionIntegrationTests.this.events
							.add(new Event(instance, "revoked", leadership.epoch(), reason, System.nanoTime()));
					}

				});
		this.resources.add(election);
		return election;
	}

	private Event next() throws InterruptedException {
		Event event = this.events.poll(30, TimeUnit.SECONDS);
		assertThat(event).as("a leadership event within 30 s").isNotNull();
		return event;
	}

	/** The next two events: the first revoked, then the second granted a larger epoch, in that order of time. */
	private Event handedOver(String from, Revocation reason, String to) throws InterruptedException {
		Event revoked = next();
		Event granted = next();
		assertThat(List.of(revoked, granted)).map(Event::toString)
			.containsExactly("revoked " + from + " (" + reason + ")", "granted " + to);
		assertThat(granted.atNanos()).as("granted after the revocation").isGreaterThan(revoked.atNanos());
		assertThat(granted.epoch()).as("the new leader's epoch").isGreaterThan(revoked.epoch());
		return granted;
	}

	@Test
	void aLeaderThatYieldsStaysOutWhileTheOtherLeads() throws Exception {
		Duration lease = Duration.ofSeconds(2);
		LeaderElection a = candidate("a", LeastPrivilegeRedis.USER, lease);
		LeaderElection b = candidate("b", OTHER_USER, lease);
		a.start();
		assertThat(next()).hasToString("granted a");
		b.start();
		assertThat(a.yieldLeadership()).isTrue();
		assertThat(a.yieldLeadership()).as("a second yield, with no term").isFalse();
		handedOver("a", Revocation.YIELDED, "b");
		// a stands again after its retry pause and waits behind b.
		assertThat(this.events.poll(5 * RETRY_PAUSE.toMillis(), TimeUnit.MILLISECONDS)).as("events while b leads")
			.isNull();
		b.close();
		handedOver("b", Revocation.SHUT_DOWN, "a");
		assertThat(this.lost).isEmpty();
	}

	/**
	 * The leader's ACL user loses its key permission: its renewals are refused, its lock runs out by its own clock and
	 * it is revoked then, while the key still stands in Redis for the drift allowance; the other instance, waiting,
	 * gets the lock once Redis lets the key expire, so after the revocation.
	 */
	@Test
	void aLeaderWhoseRenewalsAreRefusedIsRevokedBeforeTheOtherIsGranted() throws Exception {
		Duration lease = Duration.ofSeconds(1);
		LeaderElection a = candidate("a", LeastPrivilegeRedis.USER, lease);
		LeaderElection b = candidate("b", OTHER_USER, lease);
		a.start();
		assertThat(next()).hasToString("granted a");
		b.start();
		List<String> withoutKeys = new ArrayList<>(LeastPrivilegeRedis.documentedRules());
		withoutKeys.remove("~distlock:*");
		redis.grant(withoutKeys);
		Event revoked = next();
		assertThat(revoked).hasToString("revoked a (LOST)");
		assertThat(a.isLeader()).isFalse();
		LostLock loss = this.lost.poll(30, TimeUnit.SECONDS);
		assertThat(loss).as("the loss, reported").isNotNull();
		assertThat(loss.reason()).isEqualTo(LostLock.Reason.STORE_REFUSED);
		Event granted = next();
		assertThat(granted).hasToString("granted b");
		assertThat(granted.atNanos()).as("b granted after a was revoked").isGreaterThan(revoked.atNanos());
		assertThat(granted.epoch()).isGreaterThan(revoked.epoch());
	}

	@Test
	void aLeaderThatClosesItsElectionFromItsOwnListenerStepsDownAtOnce() throws Exception {
		RedisLockEngine engine = engine(LeastPrivilegeRedis.USER);
		CountDownLatch closed = new CountDownLatch(1);
		LeaderElection[] election = new LeaderElection[1];
		election[0] = new LeaderElection(engine, "reports", Duration.ofSeconds(2), RETRY_PAUSE,
				new LeadershipListener() {

					@Override
					public void granted(Leadership leadership) {
						// On the election's own thread: close() must not wait for that thread to end.
						election[0].close();
						closed.countDown();
					}

					@Override
					public void revoked(Leadership leadership, Revocation reason) {
						RedisLeaderElectionIntegrationTests.this.events
							.add(new Event("a", "revoked", leadership.epoch(), reason, System.nanoTime()));
					}

				});
		this.resources.add(election[0]);
		election[0].start();
		// close() waits up to 10 s for another thread; from its own it returns at once.
		assertThat(closed.await(5, TimeUnit.SECONDS)).as("close() from the listener returned").isTrue();
		assertThat(next()).hasToString("revoked a (SHUT_DOWN)");
		assertThat(election[0].isLeader()).isFalse();
		try (RespClient admin = redis.client()) {
			assertThat(admin.lockKeys("distlock*")).as("the election's lock, released").isEmpty();
		}
	}

	/**
	 * Redis holds every command for longer than the lease while the candidate's request is on its way: the grant
	 * arrives with its lease already run out by the candidate's clock, so the store may have let another in. No term
	 * starts (no grant is told, to be revoked at once); the loss is reported, and the candidate, standing again, is
	 * granted a term of its own with a larger epoch. The torture run's leader mode met this on a Redis Cluster whose
	 * master failed over while candidates waited.
	 */
	@Test
	void aGrantThatArrivesAfterItsLeaseRanOutStartsNoTerm() throws Exception {
		Duration lease = Duration.ofMillis(300);
		LeaderElection a = candidate("a", LeastPrivilegeRedis.USER, lease);
		Duration pause = lease.multipliedBy(3);
		try (RespClient admin = redis.client()) {
			admin.call("CLIENT", "PAUSE", String.valueOf(pause.toMillis()), "ALL");
		}
		a.start();
		LostLock arrivedLost = this.lost.poll(30, TimeUnit.SECONDS);
		assertThat(arrivedLost).as("the grant that came after its lease, reported lost").isNotNull();
		Event granted = next();
		assertThat(granted).as("the first event: a grant, not a revocation").hasToString("granted a");
		assertThat(granted.epoch()).as("the term's epoch, after the lost grant's token")
			.isGreaterThan(arrivedLost.token());
		assertThat(a.isLeader()).isTrue();
		assertThat(this.events.poll(lease.toMillis(), TimeUnit.MILLISECONDS)).as("events after the grant").isNull();
		assertThat(this.lost).as("one loss").isEmpty();
	}

}
