package io.github.distlock.redis;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.redisson.api.RedissonClient;

import io.github.distlock.LostLock;
import io.github.distlock.engine.LockHandle;
import io.github.distlock.engine.LockRequest;
import io.github.distlock.fixtures.redis.RedisExtension;
import io.github.distlock.fixtures.redis.RedisProcess;
import io.github.distlock.fixtures.redis.RespClient;

import static org.assertj.core.api.Assertions.assertThat;
import io.github.distlock.fixtures.redis.RedisTestClients;

/**
 * The hazard the start-up warning is about, on a real redis-server: a full Redis under {@code volatile-lru} evicts a
 * held lock and a second holder gets in; and the read of the policy staying bounded when Redis stalls.
 */
class EvictionIntegrationTests {

	@RegisterExtension
	static final RedisExtension redis = RedisExtension.localProcess();

	@AfterEach
	void restoreRedis() {
		try (RespClient client = redis.client()) {
			client.call("CONFIG", "SET", "maxmemory", "0");
			client.call("CONFIG", "SET", "maxmemory-policy", "noeviction");
			for (String filler : client.keys("filler:*")) {
				client.call("DEL", filler);
			}
		}
	}

	@Test
	void aFullRedisUnderVolatileLruEvictsAHeldLockTheHolderHearsOfItAndASecondHolderGetsIn() throws Exception {
		BlockingQueue<LostLock> lostByFirst = new LinkedBlockingQueue<>();
		RedissonClient firstClient = RedisTestClients.create(redis.server(), Duration.ofSeconds(3));
		RedissonClient secondClient = RedisTestClients.create(redis.server(), Duration.ofSeconds(3));
		RedisLockEngine first = new RedisLockEngine(firstClient, "distlock", null, lostByFirst::add);
		RedisLockEngine second = new RedisLockEngine(secondClient, "distlock", null, (lost) -> {
		});
		try (RespClient raw = redis.client()) {
			LockHandle held = first.acquire(new LockRequest("stock", "sku-1", Duration.ofSeconds(3), Duration.ZERO,
					true, null));
			String lockKey = "distlock:{stock:sku-1}";
			assertThat(raw.get(lockKey)).as("the lock key").isNotNull();

			// Only lock keys carry a TTL here, so volatile-lru has nothing else to evict: the outcome does not
			// depend on which keys Redis samples.
			raw.call("CONFIG", "SET", "maxmemory-policy", "volatile-lru");
			long used = Long.parseLong(infoMemory(raw).get("used_memory"));
			raw.call("CONFIG", "SET", "maxmemory", String.valueOf(used + 1024 * 1024));
			String value = "x".repeat(64 * 1024);
			int written = 0;
			while (raw.call("EXISTS", lockKey).equals(1L) && written < 200) {
				try {
					raw.call("SET", "filler:" + written++, value);
				}
				catch (IllegalStateException ex) {
					// OOM: Redis has nothing left that it may evict.
					assertThat(ex).hasMessageContaining("OOM");
					break;
				}
			}
			assertThat(raw.call("EXISTS", lockKey)).as("lock key evicted after %d filler writes", written)
				.isEqualTo(0L);
			raw.call("CONFIG", "SET", "maxmemory", "0");

			LockHandle intruder = second.acquire(new LockRequest("stock", "sku-1", Duration.ofSeconds(3),
					Duration.ZERO, true, null));
			assertThat(intruder.isLost()).as("a second holder got in").isFalse();
			System.out.println("eviction test: tokens " + held.token() + " then " + intruder.token());

			LostLock lost = lostByFirst.poll(10, TimeUnit.SECONDS);
			assertThat(lost).as("the first holder learns of the loss").isNotNull();
			assertThat(lost.reason()).isEqualTo(LostLock.Reason.NOT_OWNED);
			assertThat(lost.name()).isEqualTo("stock");
			assertThat(held.release()).isFalse();
			assertThat(intruder.release()).isTrue();
		}
		finally {
			first.close();
			second.close();
			firstClient.shutdown(0, 2, TimeUnit.SECONDS);
			secondClient.shutdown(0, 2, TimeUnit.SECONDS);
		}
	}

	@Test
	void theReaderSeesThePolicyAndAStalledRedisGivesAnUnknownPolicyWithinTheTimeout() throws Exception {
		RedissonClient client = RedisTestClients.create(redis.server(), Duration.ofSeconds(3));
		try (RespClient raw = redis.client()) {
			raw.call("CONFIG", "SET", "maxmemory-policy", "allkeys-random");
			raw.call("CONFIG", "SET", "maxmemory", "50mb");
			EvictionPolicy policy = new EvictionPolicyReader(client, Duration.ofSeconds(2)).read();
			assertThat(policy).isEqualTo(new EvictionPolicy("allkeys-random", 50L * 1024 * 1024, null));
			assertThat(policy.canEvictLocks()).isTrue();
			assertThat(policy.evictsLocksFirst()).isFalse();

			((RedisProcess) redis.server()).pause();
			try {
				long start = System.nanoTime();
				EvictionPolicy stalled = new EvictionPolicyReader(client, Duration.ofMillis(300)).read();
				assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofMillis(1500));
				assertThat(stalled.policy()).isEqualTo(EvictionPolicy.UNKNOWN);
				assertThat(stalled.unknownBecause()).isEqualTo("INFO did not answer within 300 ms");
				assertThat(stalled.canEvictLocks()).isFalse();
			}
			finally {
				((RedisProcess) redis.server()).resume();
			}
		}
		finally {
			client.shutdown(0, 2, TimeUnit.SECONDS);
		}
	}

	private static Map<String, String> infoMemory(RespClient raw) {
		Map<String, String> fields = new HashMap<>();
		for (String line : ((String) raw.call("INFO", "memory")).split("\r\n")) {
			int colon = line.indexOf(':');
			if (colon > 0) {
				fields.put(line.substring(0, colon), line.substring(colon + 1));
			}
		}
		return fields;
	}

}
