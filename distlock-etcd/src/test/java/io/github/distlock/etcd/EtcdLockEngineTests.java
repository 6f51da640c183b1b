package io.github.distlock.etcd;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.options.LeaseOption;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import io.github.distlock.LockAcquisitionException;
import io.github.distlock.LockMode;
import io.github.distlock.LostLock;
import io.github.distlock.engine.LockHandle;
import io.github.distlock.engine.LockRequest;
import io.github.distlock.conformance.StallLosses;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import io.github.distlock.fixtures.etcd.TestEtcd;

/**
 * What only an etcd engine meets, on a real one-member etcd: the instance's lease (revoked, frozen past its time to
 * live, or never failing), keys deleted from outside, the queue of keys, and what a lock costs in writes.
 */
class EtcdLockEngineTests {

	private static final Duration LEASE_TTL = Duration.ofSeconds(3);

	private static TestEtcd etcd;

	private static Client client;

	private final BlockingQueue<LostLock> lost = new LinkedBlockingQueue<>();

	private final List<EtcdLockEngine> engines = new ArrayList<>();

	private final List<Client> clients = new ArrayList<>();

	private final ExecutorService executor = Executors.newCachedThreadPool();

	@BeforeAll
	static void startEtcd() throws Exception {
		etcd = TestEtcd.single();
		client = etcd.newClient();
	}

	@AfterAll
	static void stopEtcd() {
		if (client != null) {
			client.close();
		}
		if (etcd != null) {
			etcd.close();
		}
	}

	@AfterEach
	void closeEngines() throws InterruptedException {
		this.executor.shutdownNow();
		this.executor.awaitTermination(10, TimeUnit.SECONDS);
		this.engines.forEach(EtcdLockEngine::close);
		this.clients.forEach(Client::close);
	}

	private EtcdLockEngine engine() {
		return engine(client, LEASE_TTL);
	}

	private EtcdLockEngine engine(Client on, Duration leaseTtl) {
		EtcdLockEngine engine = new EtcdLockEngine(on, EtcdLockEngine.DEFAULT_ROOT, leaseTtl, this.lost::add);
		this.engines.add(engine);
		return engine;
	}

	private Client newClient() {
		Client created = etcd.newClient();
		this.clients.add(created);
		return created;
	}

	private static LockRequest request(String key, Duration wait) {
		return new LockRequest("etcd", key, Duration.ofSeconds(10), wait, true, null);
	}

	/** The lease the lock's key is attached to, read from etcd. */
	private static long leaseOf(String key) {
		List<KeyValue> queue = StoredQueues.queue(etcd, "etcd", key);
		assertThat(queue).as("keys of " + key).isNotEmpty();
		return queue.get(0).getLease();
	}

	@Test
	void anInstanceLeaseRevokedFromOutsideLosesEveryHeldLockAndItsWaiterJoinsAgain() throws Exception {
		EtcdLockEngine engine = engine();
		LockHandle first = engine.acquire(request("revoked-1", Duration.ZERO));
		LockHandle second = engine.acquire(request("revoked-2", Duration.ZERO));
		LockHandle elsewhere = engine().acquire(request("revoked-wait", Duration.ZERO));
		Future<LockHandle> waiter = this.executor.submit(() -> engine.acquire(request("revoked-wait",
				Duration.ofSeconds(20))));
		awaitQueue("revoked-wait", 2);
		long lease = leaseOf("revoked-1");
		assertThat(leaseOf("revoked-2")).as("one lease for every lock of the instance").isEqualTo(lease);

		etcd.admin().getLeaseClient().revoke(lease).get(10, TimeUnit.SECONDS);

		Set<String> lostKeys = new HashSet<>();
		for (int i = 0; i < 2; i++) {
			LostLock loss = this.lost.poll(5, TimeUnit.SECONDS);
			assertThat(loss).as("a loss reported").isNotNull();
			assertThat(loss.reason()).isEqualTo(LostLock.Reason.NOT_OWNED);
			lostKeys.add(loss.key());
		}
		assertThat(lostKeys).containsExactlyInAnyOrder("revoked-1", "revoked-2");
		assertThat(first.isLost()).isTrue();
		assertThat(first.verify()).isFalse();
		assertThat(first.release()).isFalse();
		assertThat(second.release()).isFalse();
		assertThat(engine.heldCount()).isZero();

		// The waiter's key went with the lease: it joins again on a new lease, and gets the lock when it is free.
		awaitQueue("revoked-wait", 2);
		assertThat(leaseOf("revoked-wait")).isNotEqualTo(lease);
		assertThat(waiter.isDone()).isFalse();
		assertThat(elsewhere.release()).isTrue();
		LockHandle waited = waiter.get(10, TimeUnit.SECONDS);
		assertThat(waited.token()).isGreaterThan(elsewhere.token());
		assertThat(waited.release()).isTrue();

		// Another instance takes the lost locks; this one locks again, on its new lease.
		LockHandle next = engine().acquire(request("revoked-1", Duration.ZERO));
		assertThat(next.token()).isGreaterThan(first.token());
		assertThat(next.release()).isTrue();
		LockHandle again = engine.acquire(request("revoked-2", Duration.ZERO));
		assertThat(leaseOf("revoked-2")).isNotEqualTo(lease);
		assertThat(again.release()).isTrue();
		assertThat(this.lost).as("each loss reported once").isEmpty();
	}

	@Test
	void anEtcdFrozenPastTheLeaseTimeToLiveLosesTheLocksOnceAndFreesThem() throws Exception {
		try (TestEtcd frozen = TestEtcd.single(); Client frozenClient = frozen.newClient()) {
			EtcdLockEngine engine = engine(frozenClient, Duration.ofSeconds(1));
			LockHandle held = engine.acquire(request("frozen", Duration.ZERO));
			long frozenAt = System.nanoTime();
			frozen.members().get(0).freeze();
			LostLock loss;
			try {
				loss = this.lost.poll(5, TimeUnit.SECONDS);
			}
			finally {
				frozen.members().get(0).thaw();
			}
			assertThat(loss).as("the loss reported while etcd is frozen").isNotNull();
			assertThat(loss.key()).isEqualTo("frozen");
			assertThat(loss.reason()).isEqualTo(LostLock.Reason.NOT_OWNED);
			assertThat(Duration.ofNanos(System.nanoTime() - frozenAt)).as("about one time to live after the freeze")
				.isGreaterThanOrEqualTo(Duration.ofMillis(400));
			assertThat(held.isLost()).isTrue();

			EtcdLockEngine other = engine(frozenClient, LEASE_TTL);
			LockHandle next = other.acquire(request("frozen", Duration.ofSeconds(10)));
			assertThat(next.token()).isGreaterThan(held.token());
			assertThat(held.release()).as("a release must not remove the next holder's lock").isFalse();
			assertThat(StoredQueues.queue(frozen, "etcd", "frozen")).hasSize(1);
			// The old key's deletion, seen by its watch, is no second report.
			assertThat(this.lost.poll(300, TimeUnit.MILLISECONDS)).isNull();
			assertThat(next.release()).isTrue();
			// The engine locks again after the thaw, on a new lease.
			assertThat(engine.acquire(request("frozen", Duration.ofSeconds(5))).release()).isTrue();
		}
	}

	/**
	 * etcd stops answering (SIGSTOP) while a lock with a one-second lease is held on an instance lease that still
	 * runs: the confirmation sent a third of the lease in gets no answer, and the holder's clock decides. The lock is
	 * reported lost at its deadline, within a watchdog tick, as unreachable (etcd may still keep the key: its
	 * instance lease has not run out), not when the call's time-out ends.
	 */
	@Test
	void aLockLeaseRunOutWhileEtcdIsFrozenIsLostAtItsDeadlineWithinATick() throws Exception {
		Duration lease = Duration.ofSeconds(1);
		try (TestEtcd frozen = TestEtcd.single(); Client frozenClient = frozen.newClient()) {
			StallLosses losses = new StallLosses(this.lost);
			EtcdLockEngine engine = new EtcdLockEngine(frozenClient, EtcdLockEngine.DEFAULT_ROOT, LEASE_TTL, losses);
			this.engines.add(engine);
			LockHandle held = engine.acquire(new LockRequest("etcd", "stalled", lease, Duration.ZERO, true, null));
			long grantedUntil = held.leaseDeadlineNanos();
			frozen.members().get(0).freeze();
			LostLock loss;
			try {
				loss = this.lost.poll(lease.toMillis() * 3, TimeUnit.MILLISECONDS);
			}
			finally {
				frozen.members().get(0).thaw();
			}
			losses.assertLostAtItsDeadline(loss, held, grantedUntil, lease);
			assertThat(this.lost.poll(300, TimeUnit.MILLISECONDS)).as("reported once").isNull();
		}
	}

	@Test
	void aKeyDeletedFromOutsideIsFoundByItsWatchAndReportedOnce() throws Exception {
		EtcdLockEngine engine = engine();
		// Confirmed every 3.3 s: a loss reported within a second can only have come from the key's watch.
		LockHandle held = engine.acquire(request("deleted", Duration.ZERO));
		long deletedAt = System.nanoTime();
		StoredQueues.deleteQueue(etcd, "etcd", "deleted");
		LostLock loss = this.lost.poll(1, TimeUnit.SECONDS);
		assertThat(loss).as("reported by the key's watch").isNotNull();
		assertThat(Duration.ofNanos(System.nanoTime() - deletedAt)).isLessThan(Duration.ofSeconds(1));
		assertThat(loss.reason()).isEqualTo(LostLock.Reason.NOT_OWNED);
		assertThat(loss.token()).isEqualTo(held.token());
		assertThat(held.verify()).isFalse();
		assertThat(held.extend(Duration.ofSeconds(5))).isFalse();
		assertThat(held.release()).isFalse();
		assertThat(engine.heldCount()).isZero();
		assertThat(engine.statistics().lost()).isEqualTo(1);
		assertThat(this.lost).as("reported once").isEmpty();
	}

	@Test
	void aLockHeldOverSeveralKeepAlivePeriodsWithNothingWrongIsNeverReportedLost() throws Exception {
		// A two-second lease is kept alive about every second; the lock is confirmed about every 330 ms.
		EtcdLockEngine engine = engine(client, Duration.ofSeconds(2));
		LockHandle held = engine.acquire(new LockRequest("etcd", "quiet", Duration.ofSeconds(1), Duration.ZERO,
				true, null));
		long lease = leaseOf("quiet");
		long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
		long checks = 0;
		while (System.nanoTime() < until) {
			assertThat(this.lost.poll(250, TimeUnit.MILLISECONDS)).as("no loss while nothing is wrong").isNull();
			assertThat(held.isLost()).isFalse();
			assertThat(held.verify()).isTrue();
			checks++;
		}
		assertThat(checks).isGreaterThanOrEqualTo(10);
		assertThat(engine.statistics().renewals()).as("confirmations").isGreaterThanOrEqualTo(10);
		assertThat(leaseOf("quiet")).as("the same lease all along").isEqualTo(lease);
		assertThat(etcd.admin().getLeaseClient().timeToLive(lease, LeaseOption.DEFAULT).get(10, TimeUnit.SECONDS)
			.getTTL()).as("kept alive past its time to live").isPositive();
		assertThat(held.release()).isTrue();
		assertThat(this.lost).isEmpty();
		assertThat(engine.statistics().lost()).isZero();
	}

	@Test
	void anUncontendedLockAndUnlockAreTwoWrites() throws Exception {
		EtcdLockEngine engine = engine();
		// The first lock takes the instance's lease: no write to the key space.
		engine.acquire(request("writes", Duration.ZERO)).release();
		for (int i = 0; i < 3; i++) {
			long before = etcd.revision();
			LockHandle held = engine.acquire(request("writes", Duration.ZERO));
			assertThat(held.token()).as("the join is one write").isEqualTo(before + 1);
			assertThat(held.release()).isTrue();
			assertThat(etcd.revision()).as("lock and unlock").isEqualTo(before + 2);
		}
	}

	@Test
	void eachInstanceHasOneLeaseForAllItsLocks() throws Exception {
		EtcdLockEngine engine = engine();
		List<LockHandle> handles = new ArrayList<>();
		for (int i = 0; i < 5; i++) {
			handles.add(engine.acquire(request("shared-" + i, Duration.ZERO)));
		}
		LockHandle other = engine().acquire(request("shared-other", Duration.ZERO));
		Set<Long> leases = new HashSet<>();
		for (int i = 0; i < 5; i++) {
			leases.add(leaseOf("shared-" + i));
		}
		assertThat(leases).hasSize(1);
		assertThat(leaseOf("shared-other")).isNotIn(leases);
		for (LockHandle handle : handles) {
			assertThat(handle.release()).isTrue();
		}
		assertThat(other.release()).isTrue();
	}

	@Test
	void aCrashedInstanceWithoutGoodbyeFreesItsLocksWithinTheLeaseTimeToLive() throws Exception {
		try (TcpProxy link = new TcpProxy(etcd.members().get(0).clientPort());
				Client crashingClient = Client.builder().endpoints(link.url()).build()) {
			EtcdLockEngine crashing = engine(crashingClient, Duration.ofSeconds(1));
			LockHandle held = crashing.acquire(request("silent-crash", Duration.ZERO));
			// The instance goes silent, as a killed process or a cut-off machine would: nothing it would still send
			// (a revoke) reaches etcd, which ends the lease when its time to live runs out.
			long crashedAt = System.nanoTime();
			link.cut();
			LockHandle next = engine().acquire(request("silent-crash", Duration.ofSeconds(10)));
			Duration freedAfter = Duration.ofNanos(System.nanoTime() - crashedAt);
			// The time to live from the last keep-alive, and etcd's next round of expiry checks.
			assertThat(freedAfter).isGreaterThanOrEqualTo(Duration.ofMillis(300)).isLessThan(Duration.ofMillis(2500));
			assertThat(next.token()).isGreaterThan(held.token());
			assertThat(next.release()).isTrue();
			// The silent instance found it too, on its own clock.
			LostLock loss = this.lost.poll(5, TimeUnit.SECONDS);
			assertThat(loss).isNotNull();
			assertThat(loss.reason()).isEqualTo(LostLock.Reason.NOT_OWNED);
			assertThat(held.isLost()).isTrue();
		}
	}

	@Test
	void waitersAreServedInTheOrderTheyCame() throws Exception {
		EtcdLockEngine engine = engine();
		LockHandle held = engine.acquire(request("fifo", Duration.ZERO));
		BlockingQueue<Integer> order = new LinkedBlockingQueue<>();
		List<Future<?>> waiters = new ArrayList<>();
		for (int i = 0; i < 4; i++) {
			int waiter = i;
			EtcdLockEngine other = engine();
			waiters.add(this.executor.submit(() -> {
				LockHandle handle = other.acquire(request("fifo", Duration.ofSeconds(20)));
				order.add(waiter);
				handle.release();
				return null;
			}));
			// Queued before the next one comes.
			awaitQueue("fifo", i + 2);
		}
		held.release();
		for (Future<?> waiter : waiters) {
			waiter.get(20, TimeUnit.SECONDS);
		}
		assertThat(order).containsExactly(0, 1, 2, 3);
		assertThat(StoredQueues.queue(etcd, "etcd", "fifo")).isEmpty();
	}

	@Test
	void aWaiterThatGivesUpOrIsInterruptedLeavesTheQueue() throws Exception {
		EtcdLockEngine engine = engine();
		LockHandle held = engine.acquire(request("leave", Duration.ZERO));

		assertThatExceptionOfType(LockAcquisitionException.class)
			.isThrownBy(() -> engine().acquire(request("leave", Duration.ofMillis(200))));
		assertThat(StoredQueues.queue(etcd, "etcd", "leave")).as("gone before the call returned").hasSize(1);

		EtcdLockEngine other = engine();
		Future<LockHandle> interrupted = this.executor
			.submit(() -> other.acquire(request("leave", Duration.ofSeconds(30))));
		awaitQueue("leave", 2);
		awaitTrue(() -> other.waitingCount() == 1, "the waiter counted");
		interrupted.cancel(true);
		awaitQueue("leave", 1);
		assertThat(other.waitingCount()).isZero();

		// A single try leaves no key behind.
		assertThatExceptionOfType(LockAcquisitionException.class)
			.isThrownBy(() -> other.acquire(request("leave", Duration.ZERO)));
		assertThat(StoredQueues.queue(etcd, "etcd", "leave")).hasSize(1);
		assertThat(held.release()).isTrue();
		assertThat(StoredQueues.queue(etcd, "etcd", "leave")).isEmpty();
	}

	@Test
	void aWaiterWhoseKeyWasDeletedJoinsAgainBehindTheOthers() throws Exception {
		LockHandle held = engine().acquire(request("rejoin", Duration.ZERO));
		EtcdLockEngine first = engine();
		Future<LockHandle> firstWaiter = this.executor
			.submit(() -> first.acquire(request("rejoin", Duration.ofSeconds(20))));
		awaitQueue("rejoin", 2);
		// An operator deletes the waiter's key; it does not know until it looks again.
		KeyValue waiterKey = StoredQueues.queue(etcd, "etcd", "rejoin").get(1);
		etcd.admin().getKVClient().delete(waiterKey.getKey()).get(10, TimeUnit.SECONDS);
		EtcdLockEngine second = engine();
		Future<LockHandle> secondWaiter = this.executor
			.submit(() -> second.acquire(request("rejoin", Duration.ofSeconds(20))));
		awaitQueue("rejoin", 2);

		assertThat(held.release()).isTrue();
		// The second waiter is now first: the first one must not take the lock as well.
		LockHandle secondHandle = secondWaiter.get(10, TimeUnit.SECONDS);
		awaitQueue("rejoin", 2);
		assertThat(firstWaiter.isDone()).as("the first waiter queued again behind the second").isFalse();
		assertThat(secondHandle.release()).isTrue();
		LockHandle firstHandle = firstWaiter.get(10, TimeUnit.SECONDS);
		assertThat(firstHandle.token()).isGreaterThan(secondHandle.token());
		assertThat(firstHandle.release()).isTrue();
		assertThat(this.lost).isEmpty();
	}

	@Test
	void keysThatAreNoPlainWordsAreDistinctLocks() throws Exception {
		EtcdLockEngine engine = engine();
		List<String> keys = List.of("a/b", "a%2Fb", "a", "b", "/", "", ".", "..", "%", "x:y", "{tag}",
				"line\r\nbreak", "with spaces", "\u0000", "\uD83D\uDD12 schlo\u00DF", "\u007F\u0085",
				"k".repeat(1024), "\u00E9".repeat(1024));
		List<LockHandle> handles = new ArrayList<>();
		for (String key : keys) {
			handles.add(engine.acquire(request(key, Duration.ZERO)));
		}
		for (String key : keys) {
			assertThat(StoredQueues.queue(etcd, "etcd", key)).as(key).hasSize(1);
			assertThatExceptionOfType(LockAcquisitionException.class)
				.isThrownBy(() -> engine().acquire(request(key, Duration.ZERO)));
		}
		for (LockHandle handle : handles) {
			assertThat(handle.release()).isTrue();
		}
		LockHandle named = engine.acquire(new LockRequest("a/b", "c", Duration.ofSeconds(10), Duration.ZERO, true,
				null));
		engine.acquire(new LockRequest("a", "b/c", Duration.ofSeconds(10), Duration.ZERO, true, null)).release();
		assertThat(named.release()).isTrue();
	}

	@Test
	void tokensStrictlyIncreaseAcrossEnginesAndKeys() throws Exception {
		List<EtcdLockEngine> instances = List.of(engine(), engine(), engine());
		long previous = 0;
		for (int i = 0; i < 60; i++) {
			LockHandle handle = instances.get(i % 3).acquire(request("tokens-" + (i % 2), Duration.ZERO));
			assertThat(handle.token()).isGreaterThan(previous);
			previous = handle.token();
			handle.release();
		}
	}

	@Test
	void theLeaseCountsFromTheGrantNotFromTheStartOfTheWait() throws Exception {
		LockHandle held = engine().acquire(request("late", Duration.ZERO));
		EtcdLockEngine waiterEngine = engine();
		Future<LockHandle> waiter = this.executor.submit(() -> waiterEngine
			.acquire(new LockRequest("etcd", "late", Duration.ofMillis(500), Duration.ofSeconds(10), false, null)));
		awaitQueue("late", 2);
		Thread.sleep(700);
		held.release();
		LockHandle next = waiter.get(10, TimeUnit.SECONDS);
		assertThat(next.isLost()).as("a wait longer than the lease does not use the lease up").isFalse();
		assertThat(next.release()).isTrue();
		assertThat(this.lost).isEmpty();
	}

	@Test
	void aLockIsHeldByTheAcquisitionNotTheThread() throws Exception {
		EtcdLockEngine engine = engine();
		LockHandle held = this.executor.submit(() -> engine.acquire(request("handed", Duration.ZERO)))
			.get(10, TimeUnit.SECONDS);
		assertThat(engine.heldLocks()).singleElement().satisfies((view) -> {
			assertThat(view.token()).isEqualTo(held.token());
			assertThat(view.key()).isEqualTo("handed");
			assertThat(StoredQueues.queue(etcd, "etcd", "handed").get(0).getValue().toString()).isEqualTo(view.holder());
		});
		assertThat(held.verify()).isTrue();
		assertThat(held.release()).as("released from another thread").isTrue();
		assertThat(engine.heldCount()).isZero();
	}

	@Test
	void readWriteLocksAndPermitsAreRefused() {
		EtcdLockEngine engine = engine();
		assertThat(engine.supports(LockMode.EXCLUSIVE, false)).isTrue();
		assertThat(engine.supports(LockMode.READ, false)).isFalse();
		assertThat(engine.supports(LockMode.WRITE, false)).isFalse();
		assertThat(engine.supports(LockMode.EXCLUSIVE, true)).isFalse();
		assertThatExceptionOfType(UnsupportedOperationException.class).isThrownBy(() -> engine.acquire(
				new LockRequest("etcd", "rw", Duration.ofSeconds(10), Duration.ZERO, true, null, LockMode.READ, 0)));
		assertThatExceptionOfType(UnsupportedOperationException.class).isThrownBy(() -> engine.acquire(
				new LockRequest("etcd", "permits", Duration.ofSeconds(10), Duration.ZERO, true, null,
						LockMode.EXCLUSIVE, 3)));
		assertThat(StoredQueues.queue(etcd, "etcd", "rw")).isEmpty();
	}

	private static void awaitQueue(String key, int count) throws InterruptedException {
		awaitTrue(() -> StoredQueues.queue(etcd, "etcd", key).size() == count,
				"expected " + count + " keys for " + key);
	}

	private static void awaitTrue(BooleanSupplier condition, String what) throws InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
		while (!condition.getAsBoolean()) {
			if (System.nanoTime() > deadline) {
				throw new AssertionError(what);
			}
			Thread.sleep(5);
		}
	}

}
