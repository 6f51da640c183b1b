package io.github.distlock.redis;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.BlockingQueue;
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
 * Several locks taken in one script call ({@link RedisLockEngine#tryAcquireAll}), on a real redis-server: all of them
 * when every one is free, none when any is held, and no round trip when this engine holds one.
 */
class RedisKeySetIntegrationTests {

	@RegisterExtension
	static final RedisExtension redis = RedisExtension.anyServer();

	private final BlockingQueue<LostLock> lost = new LinkedBlockingQueue<>();

	private RedissonClient client;

	private RedisLockEngine engine;

	@BeforeEach
	void start() {
		this.client = RedisTestClients.create(redis.server(), Duration.ofSeconds(3));
		this.engine = new RedisLockEngine(this.client, "distlock", null, this.lost::add);
	}

	@AfterEach
	void stop() {
		this.engine.close();
		this.client.shutdown(0, 2, TimeUnit.SECONDS);
		assertThat(this.lost).isEmpty();
	}

	private static List<LockRequest> requests(String... keys) {
		return Arrays.stream(keys)
			.map((key) -> new LockRequest("account", key, Duration.ofSeconds(10), Duration.ZERO, true, null))
			.toList();
	}

	@Test
	void everyFreeLockIsTakenInOneScriptCallAndEachIsALockOfItsOwn() throws Exception {
		// Once first, so that loading the script into Redis is not counted.
		for (LockHandle handle : this.engine.tryAcquireAll(requests("warm", "up"))) {
			handle.release();
		}
		long before = scriptCalls();
		List<LockHandle> handles = this.engine.tryAcquireAll(requests("a:1", "b{2}", "c\r\n3"));
		assertThat(scriptCalls() - before).as("one script call for the three").isEqualTo(1);
		assertThat(handles).extracting(LockHandle::key).containsExactly("a:1", "b{2}", "c\r\n3");
		for (LockHandle handle : handles) {
			assertThat(handle.verify()).isTrue();
		}
		assertThat(this.engine.heldCount()).isEqualTo(3);
		LockHandle single = this.engine.acquire(requests("d").get(0));
		assertThat(handles.get(0).token()).as("tokens of later acquisitions still grow").isLessThan(single.token());
		for (LockHandle handle : handles) {
			assertThat(handle.release()).isTrue();
		}
		assertThat(single.release()).isTrue();
		assertThat(keysLeft()).isEmpty();
	}

	@Test
	void whenAnyLockIsHeldElsewhereNothingIsTaken() throws Exception {
		RedissonClient otherClient = RedisTestClients.create(redis.server(), Duration.ofSeconds(3));
		RedisLockEngine other = new RedisLockEngine(otherClient, "distlock", null, this.lost::add);
		try {
			LockHandle held = other.acquire(requests("b").get(0));
			assertThat(this.engine.tryAcquireAll(requests("a", "b", "c"))).isNull();
			assertThat(keysLeft()).as("only the lock held elsewhere").hasSize(1);
			assertThat(this.engine.heldCount()).isZero();
			assertThat(held.release()).isTrue();
		}
		finally {
			other.close();
			otherClient.shutdown(0, 2, TimeUnit.SECONDS);
		}
	}

	@Test
	void whenThisEngineHoldsOneOfTheLocksNoRoundTripIsMade() throws Exception {
		LockHandle held = this.engine.acquire(requests("b").get(0));
		long before = scriptCalls();
		assertThat(this.engine.tryAcquireAll(requests("a", "b"))).isNull();
		assertThat(scriptCalls()).isEqualTo(before);
		assertThat(held.release()).isTrue();
	}

	@Test
	void readWriteLocksAndPermitsAreLeftToOneByOne() throws Exception {
		List<LockRequest> reads = requests("a", "b").stream()
			.map((request) -> new LockRequest(request.name(), request.key(), request.lease(), request.waitTime(), true,
					null, LockMode.READ, 0))
			.toList();
		assertThat(this.engine.tryAcquireAll(reads)).isNull();
		assertThat(keysLeft()).isEmpty();
	}

	private static List<String> keysLeft() {
		try (RespClient client = redis.client()) {
			return client.lockKeys("distlock*");
		}
	}

	private static long scriptCalls() {
		try (RespClient client = redis.client()) {
			return client.commandCalls("evalsha|eval");
		}
	}

}
