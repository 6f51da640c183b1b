package io.github.distlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.redisson.api.RedissonClient;

import io.github.distlock.engine.LockEngineStatistics;
import io.github.distlock.LostLock;
import io.github.distlock.engine.LockHandle;
import io.github.distlock.engine.LockRequest;
import io.github.distlock.engine.support.LeasedLockHandle;
import io.github.distlock.fixtures.redis.RedisExtension;
import io.github.distlock.fixtures.redis.RespClient;

import static org.assertj.core.api.Assertions.assertThat;
import io.github.distlock.fixtures.redis.RedisTestClients;

/**
 * Thousands of locks held at once stay alive through several leases, renewed in batches that share round trips.
 */
class RedisRenewalIntegrationTests {

	@RegisterExtension
	static final RedisExtension redis = RedisExtension.anyServer();

	@Test
	void thousandsOfHeldLocksAreRenewedInSharedRoundTrips() throws Exception {
		int locks = 2000;
		BlockingQueue<LostLock> lost = new LinkedBlockingQueue<>();
		RedissonClient client = RedisTestClients.create(redis.server(), Duration.ofSeconds(3));
		RedisLockEngine engine = new RedisLockEngine(client, "distlock", null, lost::add);
		try {
			List<LockHandle> held = new ArrayList<>();
			// A lease long enough that a machine starved of CPU (a renewal can then be several hundred milliseconds
			// late) does not lose locks; 900 ms lost one now and then with three busy loops on two cores.
			for (int i = 0; i < locks; i++) {
				held.add(engine.acquire(new LockRequest("renewal", "k" + i, Duration.ofSeconds(3), Duration.ZERO,
						true, null)));
			}
			LockEngineStatistics statistics = engine.statistics();
			long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
			while (statistics.renewals() < 3L * locks && System.nanoTime() < deadline) {
				assertThat(lost).isEmpty();
				Thread.sleep(50);
			}
			assertThat(statistics.renewals()).isGreaterThanOrEqualTo(3L * locks);
			try (RespClient raw = redis.client()) {
				assertThat(raw.keys("distlock:{renewal:*")).hasSize(locks);
			}
			assertThat(statistics.renewals() / statistics.renewalRoundTrips())
				.as("locks renewed per round trip").isGreaterThanOrEqualTo(100);
			for (LockHandle handle : held) {
				assertThat(handle.release()).isTrue();
			}
			assertThat(lost).isEmpty();
			assertThat(statistics.renewalsNotOwned()).isZero();
		}
		finally {
			engine.close();
			client.shutdown(0, 2, TimeUnit.SECONDS);
		}
	}


	@Test
	void locksAcquiredOverMostOfALeaseAreRenewedTogetherOnEveryTick() throws Exception {
		int locks = 30;
		Duration lease = Duration.ofMillis(900);
		BlockingQueue<LostLock> lost = new LinkedBlockingQueue<>();
		RedissonClient client = RedisTestClients.create(redis.server(), Duration.ofSeconds(3));
		RedisLockEngine engine = new RedisLockEngine(client, "distlock", null, lost::add);
		try {
			List<LockHandle> held = new ArrayList<>();
			for (int i = 0; i < locks; i++) {
				held.add(engine.acquire(new LockRequest("cadence", "k" + i, lease, Duration.ZERO, true, null)));
				// Spread the acquisitions over two thirds of the lease: without a shared cadence they would fall
				// into several renewal phases, each costing its own round trip per interval.
				Thread.sleep(20);
			}
			LockEngineStatistics statistics = engine.statistics();
			awaitRoundTrips(statistics, 2);
			long tripsBefore = statistics.renewalRoundTrips();
			long renewalsBefore = statistics.renewals();
			awaitRoundTrips(statistics, tripsBefore + 6);
			long trips = statistics.renewalRoundTrips() - tripsBefore;
			long renewals = statistics.renewals() - renewalsBefore;
			// The last round trip's answers may still be on their way, hence one round trip of slack.
			assertThat(renewals).as("locks renewed in %d round trips", trips)
				.isGreaterThanOrEqualTo((trips - 1) * locks);
			for (LockHandle handle : held) {
				assertThat(handle.release()).isTrue();
			}
			assertThat(lost).isEmpty();
		}
		finally {
			engine.close();
			client.shutdown(0, 2, TimeUnit.SECONDS);
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
	void aHolderBelievesInNoMoreLeaseThanRedisWasGiven() throws Exception {
		RedissonClient client = RedisTestClients.create(redis.server(), Duration.ofSeconds(3));
		RedisLockEngine engine = new RedisLockEngine(client, "distlock", null, (lost) -> {
		});
		try {
			// Redis takes whole milliseconds: 2.999 ms becomes PX 2, so the holder may count on 2 ms at most, from
			// before the command was sent, less the allowance for clocks and for reporting a loss.
			long before = System.nanoTime();
			RedisLockHandle handle = (RedisLockHandle) engine.acquire(new LockRequest("deadline", "k",
					Duration.ofNanos(2_999_000), Duration.ZERO, false, null));
			long after = System.nanoTime();
			assertThat(handle.acquiredAtNanos()).as("counted from before the command was sent").isBetween(before, after);
			long granted = TimeUnit.MILLISECONDS.toNanos(2);
			assertThat(handle.leaseDeadlineNanos() - handle.acquiredAtNanos())
				.isEqualTo(granted - LeasedLockHandle.allowanceNanos(granted));
			handle.release();
		}
		finally {
			engine.close();
			client.shutdown(0, 2, TimeUnit.SECONDS);
		}
	}

}
