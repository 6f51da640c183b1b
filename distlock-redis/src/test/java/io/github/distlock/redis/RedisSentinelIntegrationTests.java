package io.github.distlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.client.RedisConnectionException;
import org.redisson.config.Config;

import io.github.distlock.LockAcquisitionException;
import io.github.distlock.LostLock;
import io.github.distlock.engine.LockHandle;
import io.github.distlock.engine.LockRequest;
import io.github.distlock.fixtures.redis.LeastPrivilegeRedis;
import io.github.distlock.fixtures.redis.RedisProcess;
import io.github.distlock.fixtures.redis.RespClient;
import io.github.distlock.fixtures.redis.SentinelRedis;
import io.github.distlock.conformance.StallLosses;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The Redis engine behind Sentinel, on real processes (a master, a replica, three sentinels): locking works, the
 * clients follow a new master after a failover, and a lock held across the failover either survives (still held,
 * still exclusive, still renewed) or is reported lost: never lost silently.
 */
class RedisSentinelIntegrationTests {

	private static final Duration LEASE = Duration.ofSeconds(2);

	private SentinelRedis sentinel;

	private final BlockingQueue<LostLock> lost = new LinkedBlockingQueue<>();

	private RedissonClient firstClient;

	private RedissonClient secondClient;

	private RedisLockEngine first;

	private RedisLockEngine second;

	/** Each test gets a topology of its own: a failover changes it for good. */
	@BeforeEach
	void start() {
		this.sentinel = SentinelRedis.start();
		this.firstClient = client();
		this.secondClient = client();
		this.first = new RedisLockEngine(this.firstClient, "distlock", Duration.ofSeconds(2), this.lost::add);
		this.second = new RedisLockEngine(this.secondClient, "distlock", Duration.ofSeconds(2), this.lost::add);
	}

	@AfterEach
	void stop() {
		this.first.close();
		this.second.close();
		this.firstClient.shutdown(0, 2, TimeUnit.SECONDS);
		this.secondClient.shutdown(0, 2, TimeUnit.SECONDS);
		this.sentinel.close();
	}

	private RedissonClient client() {
		return client(null);
	}

	/** A client of the new topology, as {@code user} of the documented ACL when given. */
	private RedissonClient client(String user) {
		Config config = new Config();
		if (user != null) {
			config.setUsername(user);
			config.setPassword(LeastPrivilegeRedis.documentedPassword());
		}
		config.setThreads(4);
		config.setNettyThreads(4);
		config.useSentinelServers()
			.setMasterName(SentinelRedis.MASTER_NAME)
			.addSentinelAddress(this.sentinel.sentinelAddresses().toArray(String[]::new))
			.setTimeout(2000)
			.setConnectTimeout(2000);
		RedisStartupCheck.connect(config);
		RedissonClient client = Redisson.create(config);
		RedisStartupCheck.verify(client, "distlock", Duration.ofSeconds(2));
		return client;
	}

	private static LockRequest request(String key, Duration wait) {
		return new LockRequest("sentinel", key, LEASE, wait, true, null);
	}

	/**
	 * The master stops (SIGSTOP) while a lock with a one-second lease is held and the command timeout (2 s) is longer
	 * than the lease: the renewal sent a third of the lease in gets no answer, and the holder's clock decides. The
	 * lock is reported lost at its deadline, within a watchdog tick, before the sentinels could have promoted the
	 * replica (a second after the master went quiet, plus an election), so before a second holder could get it there.
	 */
	@Test
	void aLeaseRunOutWhileTheMasterIsStoppedIsLostAtItsDeadlineWithinATick() throws Exception {
		Duration lease = Duration.ofSeconds(1);
		StallLosses losses = new StallLosses(this.lost);
		RedisLockEngine holder = new RedisLockEngine(this.firstClient, "distlock", null, losses);
		try {
			LockHandle held = holder.acquire(new LockRequest("sentinel", "stopped", lease, Duration.ZERO, true, null));
			long grantedUntil = held.leaseDeadlineNanos();
			RedisProcess master = this.sentinel.currentMaster();
			master.pause();
			LostLock loss;
			try {
				loss = this.lost.poll(lease.toMillis() * 3, TimeUnit.MILLISECONDS);
			}
			finally {
				master.resume();
			}
			losses.assertLostAtItsDeadline(loss, held, grantedUntil, lease);
		}
		finally {
			holder.close();
		}
	}

	@Test
	void locksAreExclusiveAndHandedOverThroughSentinel() throws Exception {
		LockHandle held = this.first.acquire(request("k", Duration.ZERO));
		assertThatExceptionOfType(LockAcquisitionException.class)
			.isThrownBy(() -> this.second.acquire(request("k", Duration.ZERO)));
		try (RespClient master = this.sentinel.masterClient()) {
			assertThat(master.get("distlock:{sentinel:k}")).as("the lock is on the master").contains("|" + held.token());
		}
		assertThat(held.release()).isTrue();
		LockHandle next = this.second.acquire(request("k", Duration.ZERO));
		assertThat(next.token()).isGreaterThan(held.token());
		assertThat(next.release()).isTrue();
		assertThat(this.lost).isEmpty();
	}

	@Test
	void aLockHeldAcrossAForcedFailoverSurvivesOrIsReportedAndTheClientsFollowTheNewMaster() throws Exception {
		int oldMaster = this.sentinel.masterPort();
		LockHandle held = this.first.acquire(request("failover", Duration.ZERO));
		this.sentinel.failover();
		assertThat(this.sentinel.masterPort()).isNotEqualTo(oldMaster);
		awaitClientsOnNewMaster();
		assertHeldOrReported(held, "failover");
		// New locks are taken on the new master.
		LockHandle after = this.second.acquire(request("after-failover", Duration.ofSeconds(10)));
		try (RespClient master = this.sentinel.masterClient()) {
			assertThat(master.get("distlock:{sentinel:after-failover}")).isNotNull();
		}
		assertThat(after.token()).isGreaterThan(held.token());
		assertThat(after.release()).isTrue();
	}

	@Test
	void aKilledMasterIsReplacedAndAHeldLockSurvivesOrIsReported() throws Exception {
		int oldMaster = this.sentinel.masterPort();
		LockHandle held = this.first.acquire(request("killed", Duration.ZERO));
		this.sentinel.originalMaster().kill();
		this.sentinel.awaitNewMaster(oldMaster);
		awaitClientsOnNewMaster();
		assertHeldOrReported(held, "killed");
		LockHandle after = this.second.acquire(request("after-kill", Duration.ofSeconds(10)));
		assertThat(after.token()).isGreaterThan(held.token());
		assertThat(after.release()).isTrue();
	}

	/**
	 * The documented least-privilege ACL, set on the master and the replica (ACLs are per server, and the replica is
	 * the next master), carries a lock's life through Sentinel and across a failover: acquire, a waiter handed the
	 * lock, renewal, verification or a reported loss, release, and a new lock on the new master, without one
	 * refusal. The sentinels themselves ask for nothing here; a Sentinel with its own password takes
	 * {@code spring.data.redis.sentinel.*}.
	 */
	@Test
	void theDocumentedAclOnMasterAndReplicaRunsALocksLifeAcrossAFailover() throws Exception {
		List<Object> grant = new ArrayList<>(List.of("ACL", "SETUSER", LeastPrivilegeRedis.USER, "reset"));
		grant.addAll(LeastPrivilegeRedis.documentedRules());
		for (RedisProcess server : List.of(this.sentinel.originalMaster(), this.sentinel.originalReplica())) {
			try (RespClient admin = server.client()) {
				admin.call(grant.toArray());
			}
		}
		RedissonClient leastFirst = client(LeastPrivilegeRedis.USER);
		RedissonClient leastSecond = client(LeastPrivilegeRedis.USER);
		RedisLockEngine holder = new RedisLockEngine(leastFirst, "distlock", Duration.ofSeconds(2), this.lost::add);
		RedisLockEngine waiter = new RedisLockEngine(leastSecond, "distlock", Duration.ofSeconds(2), this.lost::add);
		try {
			LockHandle held = holder.acquire(request("acl", Duration.ZERO));
			CompletableFuture<LockHandle> next = CompletableFuture.supplyAsync(() -> {
				try {
					return waiter.acquire(request("acl", Duration.ofSeconds(10)));
				}
				catch (InterruptedException ex) {
					throw new IllegalStateException(ex);
				}
			});
			awaitQueued("distlock:{sentinel:acl}:waiters", next);
			assertThat(held.release()).isTrue();
			LockHandle handedOver = next.get(5, TimeUnit.SECONDS);
			assertThat(handedOver.token()).isGreaterThan(held.token());
			long deadline = handedOver.leaseDeadlineNanos();
			long giveUp = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
			while (handedOver.leaseDeadlineNanos() == deadline && System.nanoTime() < giveUp) {
				// Polling the handle: the watchdog signals a renewal by nothing else.
				Thread.sleep(20);
			}
			assertThat(handedOver.leaseDeadlineNanos()).as("renewed under the ACL").isNotEqualTo(deadline);

			int oldMaster = this.sentinel.masterPort();
			this.sentinel.failover();
			assertThat(this.sentinel.masterPort()).isNotEqualTo(oldMaster);
			awaitOnMaster(waiter, "acl-probe");
			// Each client learns of the switch by itself: the holder's next lock must go to the new master too.
			awaitOnMaster(holder, "acl-holder-probe");
			if (handedOver.verify()) {
				assertThat(handedOver.release()).isTrue();
			}
			else {
				assertThat(this.lost.poll(LEASE.toMillis(), TimeUnit.MILLISECONDS)).as("reported").isNotNull();
			}
			LockHandle after = holder.acquire(request("acl-after", Duration.ofSeconds(5)));
			try (RespClient master = this.sentinel.masterClient()) {
				assertThat(master.get("distlock:{sentinel:acl-after}")).as("on the new master").isNotNull();
			}
			assertThat(after.release()).isTrue();
			assertThat(holder.standingRefusal()).isNull();
			assertThat(waiter.standingRefusal()).isNull();
		}
		finally {
			holder.close();
			waiter.close();
			leastFirst.shutdown(0, 2, TimeUnit.SECONDS);
			leastSecond.shutdown(0, 2, TimeUnit.SECONDS);
		}
	}

	/** Waits until {@code waiter} is in the lock's queue in Redis, or has finished (its failure is the finding). */
	private void awaitQueued(String queue, CompletableFuture<?> waiter) throws InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
		try (RespClient master = this.sentinel.masterClient()) {
			while (System.nanoTime() < deadline && !waiter.isDone()) {
				if (((Long) master.call("ZCARD", queue)) > 0) {
					return;
				}
				// Polling: Redis tells nobody that a member joined a sorted set.
				Thread.sleep(5);
			}
		}
	}

	/**
	 * Waits until a lock taken by {@code engine} lands on the master Sentinel names now: until Redisson hears of the
	 * switch, a demoted master that still answers as master takes its calls. A probe taken on the demoted master is
	 * gone once the client follows the switch: its release finds nothing on the new master and reports the loss,
	 * rightly. Those reports are the probes', not a held lock's, and are checked and taken out here.
	 */
	private void awaitOnMaster(RedisLockEngine engine, String prefix) throws Exception {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
		for (int attempt = 0; System.nanoTime() < deadline; attempt++) {
			String key = prefix + "-" + attempt;
			LockHandle probe = engine.acquire(request(key, Duration.ofSeconds(5)));
			boolean onNewMaster;
			try (RespClient master = this.sentinel.masterClient()) {
				onNewMaster = master.get("distlock:{sentinel:" + key + "}") != null;
			}
			try {
				probe.release();
			}
			catch (RedisConnectionException ex) {
				// Sentinel's switch closed the connection under the release (CI saw it): the probe, never a loss
				// within its lease, expires with it; the next probe tells where the client is.
				continue;
			}
			if (onNewMaster) {
				assertThat(this.lost).filteredOn((loss) -> loss.key().startsWith(prefix))
					.allMatch((loss) -> loss.reason() == LostLock.Reason.NOT_OWNED);
				this.lost.removeIf((loss) -> loss.key().startsWith(prefix));
				return;
			}
			// Polling: Redisson tells nobody when it has switched masters.
			Thread.sleep(50);
		}
		throw new AssertionError("The client never reached the new master within 30 s");
	}

	/** Waits until both clients' lock calls land on the master Sentinel names, and prints how long it took. */
	private void awaitClientsOnNewMaster() throws Exception {
		long start = System.nanoTime();
		awaitOnMaster(this.first, "probe");
		awaitOnMaster(this.second, "probe");
		System.out.println("Sentinel failover: clients on the new master "
				+ Duration.ofNanos(System.nanoTime() - start).toMillis() + " ms after Sentinel named it");
	}

	/**
	 * Either the holder still holds the lock on the new master (verified with Redis, renewed there, and another
	 * engine's try fails), or the loss was reported: never a holder that believes in a lock Redis does not have.
	 */
	private void assertHeldOrReported(LockHandle held, String key) throws Exception {
		String redisKey = "distlock:{sentinel:" + key + "}";
		// Two renewal intervals on the new master, waited for on the holder's own lease deadline.
		long before = held.leaseDeadlineNanos();
		long giveUp = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
		while (!held.isLost() && held.leaseDeadlineNanos() - before < LEASE.toNanos() / 3
				&& System.nanoTime() < giveUp) {
			// Polling the handle: renewal signals nothing else.
			Thread.sleep(20);
		}
		if (held.verify()) {
			try (RespClient master = this.sentinel.masterClient()) {
				assertThat(master.get(redisKey)).as("the lock on the new master").isNotNull();
			}
			assertThatExceptionOfType(LockAcquisitionException.class)
				.as("still exclusive after the failover")
				.isThrownBy(() -> this.second.acquire(request(key, Duration.ZERO)));
			assertThat(held.isLost()).isFalse();
			assertThat(held.release()).isTrue();
			assertThat(this.lost).isEmpty();
		}
		else {
			LostLock loss = this.lost.poll(LEASE.toMillis(), TimeUnit.MILLISECONDS);
			assertThat(loss).as("a lock that did not survive is reported").isNotNull();
			assertThat(loss.key()).isEqualTo(key);
			assertThat(held.isLost()).isTrue();
		}
		// A lock lost to the failover may still sit on the new master until its lease ends; none outlives it.
		long deadline = System.nanoTime() + LEASE.toNanos() + TimeUnit.SECONDS.toNanos(1);
		List<String> left;
		do {
			try (RespClient master = this.sentinel.masterClient()) {
				left = master.keys("distlock:{sentinel:*");
			}
		}
		while (!left.isEmpty() && System.nanoTime() < deadline && sleep());
		assertThat(left).as("nothing left on the new master").isEmpty();
	}

	private static boolean sleep() {
		try {
			// Polling for expiry: Redis announces it to nobody here.
			Thread.sleep(50);
			return true;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return false;
		}
	}

}
