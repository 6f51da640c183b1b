package io.github.distlock.redis;

import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.redisson.Redisson;
import org.redisson.api.RShardedTopic;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.redisson.config.Config;

import io.github.distlock.LostLock;
import io.github.distlock.engine.LockEngineStatistics;
import io.github.distlock.engine.LockHandle;
import io.github.distlock.engine.LockRequest;
import io.github.distlock.fixtures.redis.LeastPrivilegeRedis;
import io.github.distlock.fixtures.redis.RedisCluster;
import io.github.distlock.fixtures.redis.SlotMigration;
import io.github.distlock.fixtures.redis.RedisClusterExtension;
import io.github.distlock.fixtures.redis.RedisProcess;
import io.github.distlock.fixtures.redis.RespClient;

import static org.assertj.core.api.Assertions.assertThat;
import io.github.distlock.fixtures.redis.RedisTestClients;

/**
 * The Redis engine on a real Redis Cluster of three masters: renewals grouped by slot and sent in one round trip per
 * master, hand-overs announced within the lock's shard, key sets taken together only within one slot, scripts
 * loaded again after a flush, a stalled master that costs the others' locks nothing, and a slot that moves to another
 * master while its lock is held, renewed and waited for.
 */
class RedisClusterIntegrationTests {

	@RegisterExtension
	static final RedisClusterExtension redis = RedisClusterExtension.masters(3);

	private final BlockingQueue<LostLock> lost = new LinkedBlockingQueue<>();

	/** When each lost lock's loss was reported, by key. */
	private final Map<String, Long> reportedAt = new ConcurrentHashMap<>();

	private final Map<RedisLockEngine, RedissonClient> engines = new LinkedHashMap<>();

	@AfterEach
	void stop() {
		this.engines.forEach((engine, client) -> {
			engine.close();
			client.shutdown(0, 2, TimeUnit.SECONDS);
		});
	}

	private static RedisCluster cluster() {
		return redis.cluster();
	}

	/** An engine on a client of its own, as another application instance's would be. */
	private RedisLockEngine engine(Duration commandTimeout, Duration maxPoll) {
		return engine(RedisTestClients.clusterConfig(cluster(), Duration.ofSeconds(3)), commandTimeout, maxPoll);
	}

	private RedisLockEngine engine(Config config, Duration commandTimeout, Duration maxPoll) {
		RedissonClient client = Redisson.create(config);
		RedisLockEngine engine = new RedisLockEngine(client, "distlock", commandTimeout, (loss) -> {
			this.reportedAt.put(loss.key(), System.nanoTime());
			this.lost.add(loss);
		}, maxPoll);
		this.engines.put(engine, client);
		return engine;
	}

	private static LockRequest request(String name, String key, Duration lease, Duration wait) {
		return new LockRequest(name, key, lease, wait, true, null);
	}

	private static String lockKey(String name, String key) {
		return new RedisLockKeys("distlock").lockKey(name, key);
	}

	@Test
	void theEngineComputesTheSlotOfEveryLockKeyAsTheClusterDoes() {
		for (String key : List.of("42", "a:b", "{", "}{", "{}", "x{y}z", "\u00e9t\u00e9 \u2603", "k".repeat(300))) {
			String lockKey = lockKey("slots", key);
			assertThat(HashSlot.of(lockKey)).as(lockKey).isEqualTo(cluster().slot(lockKey));
			assertThat(HashSlot.of(key)).as(key).isEqualTo(cluster().slot(key));
		}
	}

	@Test
	void renewalsCostOneRoundTripPerMasterPerTickWhateverTheNumberOfSlots() throws Exception {
		// A client that sends nothing of its own while the requests are counted: no topology scans, no pings.
		Config quiet = RedisTestClients.clusterConfig(cluster(), Duration.ofSeconds(3));
		quiet.useClusterServers().setScanInterval(60_000).setPingConnectionInterval(0);
		RedisLockEngine engine = engine(quiet, null, RedisLockEngine.DEFAULT_MAX_POLL);
		List<LockHandle> held = new ArrayList<>();
		Map<RedisProcess, Set<Integer>> slotsByMaster = new HashMap<>();
		for (int i = 0; i < 90; i++) {
			String key = "k" + i;
			held.add(engine.acquire(request("ticks", key, Duration.ofMillis(1500), Duration.ZERO)));
			int slot = HashSlot.of(lockKey("ticks", key));
			slotsByMaster.computeIfAbsent(cluster().masterOfSlot(slot), (master) -> new HashSet<>()).add(slot);
		}
		assertThat(slotsByMaster).as("locks on every master").hasSize(3);
		LockEngineStatistics statistics = engine.statistics();
		awaitRoundTrips(statistics, statistics.renewalRoundTrips() + 1);
		Map<RedisProcess, long[]> before = new HashMap<>();
		for (RedisProcess master : slotsByMaster.keySet()) {
			before.put(master, traffic(master));
		}
		long ticksBefore = statistics.renewalRoundTrips();
		awaitRoundTrips(statistics, ticksBefore + 4);
		long ticks = statistics.renewalRoundTrips() - ticksBefore;
		for (Map.Entry<RedisProcess, Set<Integer>> master : slotsByMaster.entrySet()) {
			long[] after = traffic(master.getKey());
			long scripts = after[0] - before.get(master.getKey())[0];
			long reads = after[1] - before.get(master.getKey())[1];
			int slots = master.getValue().size();
			// One call per slot on every tick (a tick whose answer is still on its way may be counted or not).
			assertThat(scripts).as("renewal calls on a master of %d slots in %d ticks", slots, ticks)
				.isBetween((ticks - 1) * slots, (ticks + 1) * slots);
			// Every call of a tick is sent at once, without waiting for an answer: one round trip. The server reads
			// them in one read, or in two when the client's write is split on a busy machine (seen with another
			// module's tests beside these: 8 reads in 4 ticks); the slack covers the two INFO calls of this test and
			// a tick whose requests are on their way. A round trip per slot would read at least one request per slot
			// and tick, several times this bound.
			assertThat(slots).as("slots of a master: enough to tell a round trip per slot").isGreaterThan(10);
			assertThat(reads).as("requests read by a master in %d ticks, for %d calls", ticks, scripts)
				.isLessThanOrEqualTo(2 * ticks + 3);
		}
		for (LockHandle handle : held) {
			assertThat(handle.release()).isTrue();
		}
		assertThat(this.lost).isEmpty();
	}

	/** Renewal scripts run and client requests read by a master so far: {@code [evalsha calls, reads]}. */
	private static long[] traffic(RedisProcess master) {
		try (RespClient client = master.client()) {
			long scripts = client.commandCalls("evalsha");
			String stats = (String) client.call("INFO", "stats");
			Matcher reads = Pattern.compile("total_reads_processed:(\\d+)").matcher(stats);
			assertThat(reads.find()).isTrue();
			return new long[] { scripts, Long.parseLong(reads.group(1)) };
		}
	}

	private static void awaitRoundTrips(LockEngineStatistics statistics, long atLeast) throws InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
		while (statistics.renewalRoundTrips() < atLeast && System.nanoTime() < deadline) {
			Thread.sleep(10);
		}
		assertThat(statistics.renewalRoundTrips()).isGreaterThanOrEqualTo(atLeast);
	}

	@Test
	void aHandOverIsAnnouncedWithinTheLocksShardAlone() throws Exception {
		RedisLockEngine holder = engine(null, Duration.ofSeconds(30));
		RedisLockEngine waiter = engine(null, Duration.ofSeconds(30));
		String lockKey = lockKey("shard", "one");
		RedisProcess owner = cluster().masterOf(lockKey);
		Map<RedisProcess, Long> publishedBefore = publications();
		LockHandle held = holder.acquire(request("shard", "one", Duration.ofSeconds(10), Duration.ZERO));
		CompletableFuture<LockHandle> next = waitFor(waiter, "shard", "one", Duration.ofSeconds(10),
				Duration.ofSeconds(20));
		awaitQueued(lockKey);
		long released = System.nanoTime();
		assertThat(held.release()).isTrue();
		LockHandle handedOver = next.get(10, TimeUnit.SECONDS);
		// The waiter polls every 30 s: only the announcement can have woken it this soon.
		assertThat(Duration.ofNanos(System.nanoTime() - released)).isLessThan(Duration.ofSeconds(5));
		assertThat(handedOver.token()).isGreaterThan(held.token());
		Map<RedisProcess, Long> published = publications();
		for (RedisProcess master : cluster().currentMasters()) {
			long sent = published.get(master) - publishedBefore.get(master);
			if (master == owner) {
				assertThat(sent).as("SPUBLISH on the lock's master").isPositive();
			}
			else {
				assertThat(sent).as("announcements on another master").isZero();
			}
			try (RespClient client = master.client()) {
				assertThat(client.commandCalls("publish")).as("plain PUBLISH, which every node would relay").isZero();
			}
		}
		assertThat(handedOver.release()).isTrue();
		assertThat(this.lost).isEmpty();
	}

	private static Map<RedisProcess, Long> publications() {
		Map<RedisProcess, Long> calls = new HashMap<>();
		for (RedisProcess master : cluster().currentMasters()) {
			try (RespClient client = master.client()) {
				calls.put(master, client.commandCalls("spublish"));
			}
		}
		return calls;
	}

	private static CompletableFuture<LockHandle> waitFor(RedisLockEngine engine, String name, String key,
			Duration lease, Duration wait) {
		return CompletableFuture.supplyAsync(() -> {
			try {
				return engine.acquire(request(name, key, lease, wait));
			}
			catch (InterruptedException ex) {
				throw new IllegalStateException(ex);
			}
		});
	}

	/** Waits until a waiter queued on the lock: it marks the lock ("|w"). */
	private static void awaitQueued(String lockKey) throws InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
		while (System.nanoTime() < deadline) {
			try (RespClient client = cluster().clientFor(lockKey)) {
				String value = client.get(lockKey);
				if (value != null && value.endsWith("|w")) {
					return;
				}
			}
			Thread.sleep(5);
		}
		throw new AssertionError("No waiter queued on " + lockKey);
	}

	@Test
	void keysTakenTogetherMustShareASlotOtherwiseTheCallerTakesThemOneByOne() throws Exception {
		RedisLockEngine engine = engine(null, RedisLockEngine.DEFAULT_MAX_POLL);
		List<String> sameSlot = twoKeysOfOneSlot("set");
		List<LockRequest> sameSlotRequests = List.of(
				request("set", sameSlot.get(0), Duration.ofSeconds(10), Duration.ZERO),
				request("set", sameSlot.get(1), Duration.ofSeconds(10), Duration.ZERO));
		// Once first, so that loading the script on that master is not counted.
		for (LockHandle handle : engine.tryAcquireAll(sameSlotRequests)) {
			handle.release();
		}
		long scriptsBefore = scriptCalls("evalsha");
		List<LockHandle> together = engine.tryAcquireAll(sameSlotRequests);
		assertThat(together).as("two keys of one slot").hasSize(2);
		assertThat(scriptCalls("evalsha") - scriptsBefore).as("one script call for both").isEqualTo(1);
		assertThat(together.get(0).token()).isEqualTo(together.get(1).token());
		String a = "a";
		String b = "b";
		assertThat(HashSlot.of(lockKey("set", a))).isNotEqualTo(HashSlot.of(lockKey("set", b)));
		scriptsBefore = scriptCalls("evalsha|eval|exists");
		assertThat(engine.tryAcquireAll(List.of(request("set", a, Duration.ofSeconds(10), Duration.ZERO),
				request("set", b, Duration.ofSeconds(10), Duration.ZERO))))
			.as("keys of two slots: left to the caller, one by one")
			.isNull();
		assertThat(scriptCalls("evalsha|eval|exists") - scriptsBefore).as("nothing sent").isZero();
		assertThat(cluster().keys("distlock:{set:[ab]}")).isEmpty();
		for (LockHandle handle : together) {
			assertThat(handle.release()).isTrue();
		}
		assertThat(this.lost).isEmpty();
	}

	private static List<String> twoKeysOfOneSlot(String name) {
		Map<Integer, String> seen = new HashMap<>();
		for (int i = 0;; i++) {
			String key = "s" + i;
			String other = seen.putIfAbsent(HashSlot.of(lockKey(name, key)), key);
			if (other != null) {
				return List.of(other, key);
			}
		}
	}

	/** Calls of these commands on every master, the scripts' own included (acquire_all.lua runs EXISTS). */
	private static long scriptCalls(String commands) {
		long calls = 0;
		for (RedisProcess master : cluster().currentMasters()) {
			try (RespClient client = master.client()) {
				calls += client.commandCalls(commands);
			}
		}
		return calls;
	}

	@Test
	void renewalsGoOnAfterEveryMasterForgotTheScripts() throws Exception {
		RedisLockEngine engine = engine(null, RedisLockEngine.DEFAULT_MAX_POLL);
		List<LockHandle> held = new ArrayList<>();
		for (int i = 0; i < 12; i++) {
			held.add(engine.acquire(request("flush", "k" + i, Duration.ofMillis(1500), Duration.ZERO)));
		}
		long refusedBefore = 0;
		for (RedisProcess master : cluster().currentMasters()) {
			try (RespClient client = master.client()) {
				client.call("SCRIPT", "FLUSH");
				refusedBefore += noScriptErrors(client);
			}
		}
		long renewals = engine.statistics().renewals();
		awaitRoundTrips(engine.statistics(), engine.statistics().renewalRoundTrips() + 3);
		assertThat(engine.statistics().renewals() - renewals).as("renewals after the flush")
			.isGreaterThanOrEqualTo(2L * held.size());
		long refused = -refusedBefore;
		for (RedisProcess master : cluster().currentMasters()) {
			try (RespClient client = master.client()) {
				refused += noScriptErrors(client);
			}
		}
		assertThat(refused).as("renewals refused with NOSCRIPT: each batch loads the script first").isZero();
		for (LockHandle handle : held) {
			assertThat(handle.verify()).isTrue();
			assertThat(handle.release()).isTrue();
		}
		assertThat(this.lost).isEmpty();
	}

	private static long noScriptErrors(RespClient client) {
		Matcher count = Pattern.compile("errorstat_NOSCRIPT:count=(\\d+)")
			.matcher((String) client.call("INFO", "errorstats"));
		return count.find() ? Long.parseLong(count.group(1)) : 0;
	}

	@Test
	void aStalledMasterCostsTheLocksOfTheOtherMastersNothingAndHidesNoLossOfTheirs() throws Exception {
		// A command timeout well under the lease: a renewal waits that long at most for the stalled master.
		RedisLockEngine engine = engine(Duration.ofMillis(300), RedisLockEngine.DEFAULT_MAX_POLL);
		Duration lease = Duration.ofMillis(1500);
		Map<LockHandle, RedisProcess> held = new HashMap<>();
		for (int i = 0; i < 30; i++) {
			LockHandle handle = engine.acquire(request("stall", "k" + i, lease, Duration.ZERO));
			held.put(handle, cluster().masterOf(lockKey("stall", "k" + i)));
		}
		RedisProcess stalled = cluster().masterOf(lockKey("stall", "k0"));
		LockHandle taken = held.entrySet().stream().filter((lock) -> lock.getValue() != stalled).findFirst()
			.orElseThrow().getKey();
		stalled.pause();
		try {
			// A lock of a master that answers, removed meanwhile: its loss is reported while the stall lasts.
			// Straight to its master: the fixture's own look-ups could land on the stalled one.
			try (RespClient client = held.get(taken).client()) {
				client.call("DEL", lockKey("stall", taken.key()));
			}
			LostLock loss = this.lost.poll(lease.toMillis(), TimeUnit.MILLISECONDS);
			assertThat(loss).isNotNull();
			assertThat(loss.key()).isEqualTo(taken.key());
			assertThat(loss.reason()).isEqualTo(LostLock.Reason.NOT_OWNED);
			// Longer than a lease in all: the stalled master's locks cannot be confirmed, the others' must be.
			Thread.sleep(lease.toMillis());
		}
		finally {
			stalled.resume();
		}
		Set<String> lostKeys = new HashSet<>();
		for (LostLock loss : this.lost) {
			lostKeys.add(loss.key());
			assertThat(loss.reason()).isEqualTo(LostLock.Reason.STORE_UNREACHABLE);
		}
		for (Map.Entry<LockHandle, RedisProcess> lock : held.entrySet()) {
			LockHandle handle = lock.getKey();
			if (handle == taken) {
				assertThat(handle.isLost()).isTrue();
			}
			else if (lock.getValue() != stalled) {
				assertThat(lostKeys).as("locks of the masters that answered").doesNotContain(handle.key());
				assertThat(handle.verify()).isTrue();
			}
			else {
				assertThat(lostKeys).as("a lock of the stalled master, unconfirmed past its lease")
					.contains(handle.key());
			}
		}
		cluster().awaitStable();
		for (LockHandle handle : held.keySet()) {
			assertThat(handle.release()).isEqualTo(held.get(handle) != stalled && handle != taken);
		}
		assertThat(cluster().keys("distlock:{stall:*")).as("the stalled master's locks expired").isEmpty();
	}

	/**
	 * A master answers nothing for longer than the other masters' locks live, and the command timeout is longer than
	 * their lease too. While the watchdog waits for the stalled master's renewal, it must keep renewing the others on
	 * time, or they expire in their masters and their next renewal finds them gone (a loss the store did not cause);
	 * and the stalled master's locks are lost at their own deadline by the holder's clock, not when the command
	 * timeout at last fails their renewal (two seconds after the deadline here, while a second holder could already
	 * have the lock from a master that came back).
	 */
	@Test
	void aStalledMastersLocksAreLostAtTheirDeadlineWhileTheOtherMastersLocksRenewOnTime() throws Exception {
		Duration commandTimeout = Duration.ofSeconds(3);
		Duration lease = Duration.ofMillis(1500);
		RedisLockEngine engine = engine(commandTimeout, RedisLockEngine.DEFAULT_MAX_POLL);
		Map<LockHandle, RedisProcess> held = new HashMap<>();
		for (int i = 0; i < 30; i++) {
			LockHandle handle = engine.acquire(request("silent", "k" + i, lease, Duration.ZERO));
			held.put(handle, cluster().masterOf(lockKey("silent", "k" + i)));
		}
		RedisProcess stalled = cluster().masterOf(lockKey("silent", "k0"));
		Map<String, LockHandle> stalledLocks = new HashMap<>();
		held.forEach((handle, master) -> {
			if (master == stalled) {
				stalledLocks.put(handle.key(), handle);
			}
		});
		long renewalsBefore = engine.statistics().renewals();
		stalled.pause();
		try {
			for (int i = 0; i < stalledLocks.size(); i++) {
				LostLock loss = this.lost.poll(lease.multipliedBy(3).toMillis(), TimeUnit.MILLISECONDS);
				assertThat(loss).as("loss %d of %d of the stalled master", i + 1, stalledLocks.size()).isNotNull();
				// Not the fixture's look-up of the master: it could ask the stalled one.
				LockHandle handle = stalledLocks.get(loss.key());
				assertThat(handle).as("a lock of the stalled master: " + loss.key()).isNotNull();
				assertThat(loss.reason()).isEqualTo(LostLock.Reason.STORE_UNREACHABLE);
				// Within one renewal interval of its deadline; the command timeout would have made it 2 s.
				assertThat(this.reportedAt.get(loss.key()) - handle.leaseDeadlineNanos())
					.as("how long after its deadline the loss of %s was reported", loss.key())
					.isNotNegative()
					.isLessThan(lease.toNanos() / 3);
			}
			// The answering masters' locks go on renewing, each tick on time, while the stall lasts (longer than
			// their leases: a lock waiting behind the stalled master would be lost now).
			long renewalsAtLastLoss = engine.statistics().renewals() - renewalsBefore;
			awaitRenewals(engine.statistics(), held.size() - stalledLocks.size());
			assertThat(renewalsAtLastLoss).as("renewals of the answering masters' locks until the last loss")
				.isGreaterThanOrEqualTo(held.size() - stalledLocks.size());
			assertThat(engine.renewalLag()).as("the watchdog's lag while the stall lasts")
				.isLessThan(lease.dividedBy(3));
		}
		finally {
			stalled.resume();
		}
		assertThat(this.lost).as("losses besides the stalled master's").isEmpty();
		cluster().awaitStable();
		for (Map.Entry<LockHandle, RedisProcess> lock : held.entrySet()) {
			boolean answered = lock.getValue() != stalled;
			assertThat(lock.getKey().isLost()).as(lock.getKey().key()).isEqualTo(!answered);
			assertThat(lock.getKey().release()).as(lock.getKey().key()).isEqualTo(answered);
		}
		assertThat(this.lost).isEmpty();
	}

	@Test
	void aLockWhoseSlotMovesToAnotherMasterKeepsItsRenewalsAndItsWaiter() throws Exception {
		Duration lease = Duration.ofSeconds(2);
		// The holder's waiters poll only every 10 s (at most as long as the lock lives): its hand-overs are heard.
		RedisLockEngine holder = engine(null, Duration.ofSeconds(10));
		// The waiter polls every second, as by default: it finds a hand-over it did not hear well within its lease.
		RedisLockEngine waiter = engine(null, RedisLockEngine.DEFAULT_MAX_POLL);
		String lockKey = lockKey("moving", "order-1");
		int slot = HashSlot.of(lockKey);
		RedisProcess source = cluster().masterOfSlot(slot);
		RedisProcess target = cluster().currentMasters().stream().filter((node) -> node != source).findFirst()
			.orElseThrow();
		LockHandle held = holder.acquire(request("moving", "order-1", lease, Duration.ZERO));
		CompletableFuture<LockHandle> next = waitFor(waiter, "moving", "order-1", lease, Duration.ofSeconds(30));
		awaitQueued(lockKey);
		LockEngineStatistics statistics = holder.statistics();

		SlotMigration migration = cluster().migrate(slot, target);
		// Each step lasts over a renewal interval (a third of the lease): renewed on the source while it still has
		// the keys, through ASK once they are on the target, through MOVED once the slot is the target's.
		awaitRenewals(statistics, 2);
		assertThat(migration.moveKeys()).as("the lock, its queue and the slot's token floor").isEqualTo(3);
		awaitRenewals(statistics, 2);
		migration.finish();
		awaitRenewals(statistics, 2);
		assertThat(cluster().masterOfSlot(slot)).isSameAs(target);
		try (RespClient client = target.client()) {
			assertThat(client.get(lockKey)).as("the lock, on its new master").startsWith(holderId(held, holder));
			assertThat((Long) client.call("PTTL", lockKey)).as("still renewed").isGreaterThan(lease.toMillis() / 2);
		}
		assertThat(this.lost).as("no false alarm").isEmpty();
		assertThat(held.verify()).isTrue();

		// The waiter subscribed to the lock's shard channels on the source: it may not hear the hand-over, but it
		// is still handed the lock, at its next poll at the latest.
		assertThat(held.release()).isTrue();
		LockHandle handedOver = next.get(5, TimeUnit.SECONDS);
		assertThat(handedOver.token()).as("the fence holds").isGreaterThan(held.token());
		awaitRenewals(waiter.statistics(), 1);
		assertThat(handedOver.verify()).isTrue();

		// Once the holder's client knows where the slot is now, a new wait subscribes there, and hears the next
		// hand-over.
		awaitShardChannelsServed(this.engines.get(holder), lockKey);
		CompletableFuture<LockHandle> third = waitFor(holder, "moving", "order-1", lease, Duration.ofSeconds(30));
		awaitQueued(lockKey);
		long released = System.nanoTime();
		assertThat(handedOver.release()).isTrue();
		LockHandle last = third.get(10, TimeUnit.SECONDS);
		assertThat(Duration.ofNanos(System.nanoTime() - released)).as("heard, not polled")
			.isLessThan(Duration.ofMillis(lease.toMillis() / 2));
		assertThat(last.token()).isGreaterThan(handedOver.token());
		assertThat(last.release()).isTrue();
		assertThat(this.lost).isEmpty();
	}

	/** What a least-privileged user needs on a cluster besides the documented ACL, as docs/operations.md says. */
	static final String CLUSTER_GRANTS = "+spublish +ssubscribe +sunsubscribe +cluster|nodes +asking +readonly"
			+ " +pubsub|numpat +pubsub|shardnumsub";

	@Test
	void theDocumentedAclWithItsClusterGrantsRunsALocksLifeThroughASlotMigration() throws Exception {
		assertThat(Files.readString(LeastPrivilegeRedis.findAclPage())).as("the operations page names the cluster grants")
			.contains("`" + CLUSTER_GRANTS + "`");
		List<Object> grant = new ArrayList<>(List.of("ACL", "SETUSER", LeastPrivilegeRedis.USER, "reset"));
		grant.addAll(LeastPrivilegeRedis.documentedRules());
		grant.addAll(List.of(CLUSTER_GRANTS.split(" ")));
		for (RedisProcess master : cluster().currentMasters()) {
			try (RespClient client = master.client()) {
				// ACLs are per node: a cluster does not share them.
				client.call(grant.toArray());
			}
		}
		Config config = RedisTestClients.clusterConfig(cluster(), Duration.ofSeconds(2));
		config.setUsername(LeastPrivilegeRedis.USER);
		config.setPassword(LeastPrivilegeRedis.documentedPassword());
		RedisStartupCheck.connect(config);
		RedissonClient client = Redisson.create(config);
		RedisStartupCheck.verify(client, "distlock", Duration.ofSeconds(2));
		RedisLockEngine first = new RedisLockEngine(client, "distlock", Duration.ofSeconds(2), this.lost::add);
		RedisLockEngine second = new RedisLockEngine(client, "distlock", Duration.ofSeconds(2), this.lost::add,
				Duration.ofSeconds(30));
		this.engines.put(first, client);
		this.engines.put(second, client);
		LockHandle held = first.acquire(request("acl", "life", Duration.ofSeconds(2), Duration.ZERO));
		CompletableFuture<LockHandle> next = waitFor(second, "acl", "life", Duration.ofSeconds(2),
				Duration.ofSeconds(10));
		String lockKey = lockKey("acl", "life");
		awaitQueued(lockKey);
		assertThat(held.release()).isTrue();
		LockHandle handedOver = next.get(5, TimeUnit.SECONDS);
		// Through a migration: redirected calls are preceded by ASKING.
		int slot = HashSlot.of(lockKey);
		RedisProcess source = cluster().masterOfSlot(slot);
		SlotMigration migration = cluster().migrate(slot,
				cluster().currentMasters().stream().filter((node) -> node != source).findFirst().orElseThrow());
		migration.moveKeys();
		assertThat(handedOver.verify()).isTrue();
		migration.finish();
		awaitRenewals(second.statistics(), 2);
		assertThat(handedOver.release()).isTrue();
		assertThat(first.standingRefusal()).isNull();
		assertThat(second.standingRefusal()).isNull();
		assertThat(this.lost).isEmpty();
	}

	/**
	 * Waits until the client routes shard channels of the lock's slot to the master that serves the slot: it learns a
	 * moved slot at its next topology scan, and until then a subscription goes to the old master, which refuses it.
	 */
	private static void awaitShardChannelsServed(RedissonClient client, String lockKey) throws Exception {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
		for (int probe = 0; System.nanoTime() < deadline; probe++) {
			// A channel of its own for each probe: a refused subscription must not linger on the next one's.
			RShardedTopic topic = client.getShardedTopic(lockKey + ":probe:" + probe, StringCodec.INSTANCE);
			CompletableFuture<Integer> listener = topic.addListenerAsync(String.class, (channel, message) -> {
			}).toCompletableFuture();
			try {
				topic.removeListener(listener.get(300, TimeUnit.MILLISECONDS));
				return;
			}
			catch (ExecutionException | TimeoutException ex) {
				listener.thenAccept(topic::removeListenerAsync);
			}
		}
		throw new AssertionError("The client never subscribed to a shard channel of " + lockKey);
	}

	private static String holderId(LockHandle handle, RedisLockEngine engine) {
		return engine.heldLocks()
			.stream()
			.filter((view) -> view.token() == handle.token())
			.findFirst()
			.orElseThrow()
			.holder();
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
