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

import io.github.distlock.LostLock;
import io.github.distlock.engine.LockHandle;
import io.github.distlock.engine.LockRequest;
import io.github.distlock.test.RedisExtension;
import io.github.distlock.test.RespClient;

import static org.assertj.core.api.Assertions.assertThat;

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
			for (int i = 0; i < locks; i++) {
				held.add(engine.acquire(new LockRequest("renewal", "k" + i, Duration.ofMillis(900), Duration.ZERO,
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
				assertThat(raw.keys("distlock:renewal:*")).hasSize(locks);
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

}
