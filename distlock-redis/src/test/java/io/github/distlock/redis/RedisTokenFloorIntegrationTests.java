package io.github.distlock.redis;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.redisson.api.RedissonClient;

import io.github.distlock.LockMode;
import io.github.distlock.LostLock;
import io.github.distlock.engine.LockHandle;
import io.github.distlock.engine.LockRequest;
import io.github.distlock.fixtures.redis.RedisExtension;
import io.github.distlock.fixtures.redis.RespClient;

import static org.assertj.core.api.Assertions.assertThat;
import io.github.distlock.fixtures.redis.RedisTestClients;

/**
 * Tokens never go backwards when the server's clock is behind the last token issued: what a replica promoted with a
 * clock behind the old master's sees. The old master's tokens reach it as the token floor (replicated with the
 * grants); here the floor is set ahead of this server's clock by hand, as such a master would have left it, and every
 * way to grant a lock must issue a token above it: a free lock, a hand-over, a set of keys, a reader, a permit.
 */
class RedisTokenFloorIntegrationTests {

	@RegisterExtension
	static final RedisExtension redis = RedisExtension.anyServer();

	private static final String FLOOR = "distlock:token";

	private final BlockingQueue<LostLock> lost = new LinkedBlockingQueue<>();

	private final ExecutorService executor = Executors.newSingleThreadExecutor();

	private RedissonClient client;

	private RedisLockEngine engine;

	@BeforeEach
	void start() {
		this.client = RedisTestClients.create(redis.server(), Duration.ofSeconds(3));
		this.engine = new RedisLockEngine(this.client, "distlock", null, this.lost::add);
	}

	@AfterEach
	void stop() throws InterruptedException {
		this.executor.shutdownNow();
		this.executor.awaitTermination(10, TimeUnit.SECONDS);
		this.engine.close();
		this.client.shutdown(0, 2, TimeUnit.SECONDS);
		assertThat(this.lost).isEmpty();
	}

	private static LockRequest request(String key, Duration wait) {
		return new LockRequest("floor", key, Duration.ofSeconds(10), wait, true, null);
	}

	private static LockRequest shared(String key, LockMode mode, int permits) {
		return new LockRequest("floor", key, Duration.ofSeconds(10), Duration.ZERO, true, null, mode, permits);
	}

	/** Sets the floor an hour ahead of the server's clock, as a master whose clock was an hour ahead left it. */
	private static long floorAnHourAhead() {
		try (RespClient raw = redis.client()) {
			@SuppressWarnings("unchecked")
			List<String> time = (List<String>) raw.call("TIME");
			long floor = Long.parseLong(time.get(0)) * 1_000_000 + Long.parseLong(time.get(1))
					+ TimeUnit.HOURS.toMicros(1);
			raw.call("SET", FLOOR, Long.toString(floor), "PX", "10000");
			return floor;
		}
	}

	private static long floorNow() {
		try (RespClient raw = redis.client()) {
			return Long.parseLong(raw.get(FLOOR));
		}
	}

	@Test
	void aFreeLockTriedOrWaitedForAndASetOfKeysGetTokensAboveTheFloorAndRaiseIt() throws Exception {
		long floor = floorAnHourAhead();
		LockHandle first = this.engine.acquire(request("free", Duration.ZERO));
		assertThat(first.token()).as("a single try (try.lua)").isGreaterThan(floor);
		assertThat(floorNow()).as("the floor follows the grant").isEqualTo(first.token());
		assertThat(first.release()).isTrue();

		LockHandle again = this.engine.acquire(request("free", Duration.ofSeconds(1)));
		assertThat(again.token()).as("a caller that may wait (acquire.lua), still above the clock's own")
			.isGreaterThan(first.token());
		assertThat(floorNow()).as("the floor follows the grant").isEqualTo(again.token());
		assertThat(again.release()).isTrue();

		List<LockHandle> set = this.engine.tryAcquireAll(List.of(request("set-a", Duration.ZERO),
				request("set-b", Duration.ZERO)));
		assertThat(set).hasSize(2).allSatisfy((handle) -> assertThat(handle.token()).isGreaterThan(again.token()));
		for (LockHandle handle : set) {
			assertThat(handle.release()).isTrue();
		}
	}

	@Test
	void aHandOverGetsATokenAboveTheFloor() throws Exception {
		LockHandle holder = this.engine.acquire(request("handed", Duration.ZERO));
		Future<LockHandle> waiter = this.executor.submit(() -> this.engine.acquire(request("handed",
				Duration.ofSeconds(10))));
		awaitQueued("distlock:{floor:handed}:waiters");
		long floor = floorAnHourAhead();
		assertThat(holder.release()).isTrue();
		LockHandle next = waiter.get(10, TimeUnit.SECONDS);
		assertThat(next.token()).isGreaterThan(floor);
		assertThat(next.release()).isTrue();
	}

	@Test
	void readersAndPermitsGetTokensAboveTheFloor() throws Exception {
		long floor = floorAnHourAhead();
		LockHandle reader = this.engine.acquire(shared("shared", LockMode.READ, 0));
		assertThat(reader.token()).isGreaterThan(floor);
		LockHandle permit = this.engine.acquire(shared("shared", LockMode.EXCLUSIVE, 2));
		assertThat(permit.token()).isGreaterThan(reader.token());
		assertThat(reader.release()).isTrue();
		assertThat(permit.release()).isTrue();
	}

	private static void awaitQueued(String queueKey) throws InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
		try (RespClient raw = redis.client()) {
			// Polling Redis, the only place the waiter's queue entry shows.
			while ((Long) raw.call("ZCARD", queueKey) == 0) {
				assertThat(System.nanoTime()).as("the waiter queued").isLessThan(deadline);
				Thread.sleep(5);
			}
		}
	}

}
