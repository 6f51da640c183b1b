package io.github.distlock.testing;

import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.core.env.Environment;

import io.github.distlock.LockLostException;
import io.github.distlock.LostLock;
import io.github.distlock.engine.HeldLockView;
import io.github.distlock.engine.LockHandle;
import io.github.distlock.engine.LockRequest;
import io.github.distlock.redis.RedisLockEngine;
import io.github.distlock.fixtures.redis.RespClient;
import io.github.distlock.testing.LockingApplication.HeldCall;
import io.github.distlock.testing.LockingApplication.LockedWork;
import io.github.distlock.testing.LockingApplication.LostLocks;
import io.github.distlock.testing.redis.EmbeddedRedisServer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@link AutoConfigureDistLock} on an application whose settings point at a Redis that must never be used: the
 * context runs on its own real redis-server, the assertions see locks whoever holds them, and expiring or taking a
 * lock makes the holder's call fail as a real expiry or a second instance would.
 */
@SpringBootTest(classes = LockingApplication.class, properties = { "spring.data.redis.host=redis.prod.invalid",
		"spring.data.redis.port=6390", "spring.data.redis.url=redis://redis.prod.invalid:6390",
		"spring.data.redis.password=prod-secret", "spring.data.redis.ssl.enabled=true",
		"spring.data.redis.sentinel.master=prod", "spring.data.redis.sentinel.nodes=redis.prod.invalid:26379",
		"distlock.redis.config=classpath:no-such-redisson.yaml" })
@AutoConfigureDistLock
class AutoConfigureDistLockIntegrationTests {

	@Autowired
	LockedWork work;

	@Autowired
	LostLocks lostLocks;

	@Autowired
	DistLocks locks;

	@Autowired
	EmbeddedRedisServer server;

	@Autowired
	RedisLockEngine engine;

	@Autowired
	Environment environment;

	private ExecutorService executor;

	@BeforeEach
	void setUp() {
		this.lostLocks.clear();
		this.executor = Executors.newCachedThreadPool();
	}

	@AfterEach
	void tearDown() throws InterruptedException {
		this.executor.shutdownNow();
		assertThat(this.executor.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
	}

	@Test
	void locksInTheContextsOwnRedisServerWhateverTheSettingsSay() throws Exception {
		assertThat(this.environment.getProperty("spring.data.redis.host")).isEqualTo("127.0.0.1");
		assertThat(this.environment.getProperty("spring.data.redis.port", Integer.class)).isEqualTo(this.server.port());
		assertThat(ProcessHandle.current().children().map(ProcessHandle::pid)).contains(this.server.pid());
		HeldCall call = new HeldCall();
		Future<?> held = hold("a", call);
		long token = call.awaitEntered();
		try (RespClient raw = new RespClient(this.server.host(), this.server.port())) {
			assertThat(raw.get("distlock:{job:a}")).endsWith("|" + token);
		}
		call.finish();
		held.get(10, TimeUnit.SECONDS);
	}

	@Test
	void assertHeldSeesTheLockFromAnotherThreadWhileTheMethodRuns() throws Exception {
		HeldCall call = new HeldCall();
		Future<?> held = hold("b", call);
		long token = call.awaitEntered();

		StoredLock stored = DistLockAssert.assertHeld("job", "b");
		assertThat(stored.token()).isEqualTo(token);
		assertThat(stored.holder()).isEqualTo(holderHere("b"));
		assertThat(stored.timeToLive()).isPositive().isLessThanOrEqualTo(Duration.ofSeconds(2));
		assertThatExceptionOfType(AssertionError.class).isThrownBy(() -> DistLockAssert.assertNotHeld("job", "b"))
			.withMessageContaining("Expected lock 'job' for key 'b' not to be held, but this application holds it")
			.withMessageContaining("holder " + stored.holder())
			.withMessageContaining("token " + token);

		call.finish();
		held.get(10, TimeUnit.SECONDS);
		DistLockAssert.assertNotHeld("job", "b");
		assertThatExceptionOfType(AssertionError.class).isThrownBy(() -> DistLockAssert.assertHeld("job", "b"))
			.withMessageContaining("Expected lock 'job' for key 'b' to be held, but Redis has no such lock "
					+ "(distlock:{job:b}); this application holds no lock now");
	}

	@Test
	void aLockHeldByAnotherInstanceCounts() throws Exception {
		Config config = new Config();
		config.useSingleServer().setAddress("redis://" + this.server.host() + ":" + this.server.port());
		RedissonClient otherClient = Redisson.create(config);
		try (RedisLockEngine other = new RedisLockEngine(otherClient, "distlock", null, (lost) -> {
		})) {
			LockHandle handle = other.acquire(new LockRequest("job", "c", Duration.ofSeconds(10), Duration.ZERO, true,
					null));
			assertThat(DistLockAssert.assertHeld("job", "c").token()).isEqualTo(handle.token());
			assertThat(this.locks.isHeld("job", "c")).isTrue();
			assertThatExceptionOfType(AssertionError.class).isThrownBy(() -> DistLockAssert.assertNotHeld("job", "c"))
				.withMessageContaining("Expected lock 'job' for key 'c' not to be held, but another instance holds it");
			assertThat(handle.release()).isTrue();
			DistLockAssert.assertNotHeld("job", "c");
			assertThat(this.locks.find("job", "c")).isEmpty();
		}
		finally {
			otherClient.shutdown();
		}
	}

	@Test
	void expiringALockFailsTheHoldersCallAtItsEndAndTellsTheListeners() throws Exception {
		HeldCall call = new HeldCall();
		Future<?> held = hold("d", call);
		long token = call.awaitEntered();

		StoredLock expired = this.locks.expire("job", "d");
		assertThat(expired.token()).isEqualTo(token);
		DistLockAssert.assertNotHeld("job", "d");

		call.finish();
		LockLostException lost = lockLost(held);
		assertThat(lost.getLockName()).isEqualTo("job");
		assertThat(lost.getLockKey()).isEqualTo("d");
		assertThat(lost.getToken()).isEqualTo(token);
		assertThat(this.lostLocks.next()).isEqualTo(new LostLock("job", "d", token, LostLock.Reason.NOT_OWNED));
	}

	@Test
	void anExpiredLockIsFoundByTheWatchdogWhileTheMethodStillRuns() throws Exception {
		HeldCall call = new HeldCall();
		// The method returns only when interrupted, which only the loss (onLost = INTERRUPT) does.
		Future<?> held = this.executor.submit(() -> {
			this.work.holdUntilInterrupted("e", call);
			return null;
		});
		long token = call.awaitEntered();

		this.locks.expire("job", "e");

		assertThat(lockLost(held).getToken()).isEqualTo(token);
		assertThat(this.lostLocks.next()).isEqualTo(new LostLock("job", "e", token, LostLock.Reason.NOT_OWNED));
	}

	@Test
	void expiringAFreeLockFails() {
		assertThatExceptionOfType(AssertionError.class).isThrownBy(() -> this.locks.expire("job", "free"))
			.withMessageContaining("Cannot expire lock 'job' for key 'free': Redis has no such lock");
	}

	@Test
	void takingALockGivesAnotherHolderALargerToken() throws Exception {
		HeldCall call = new HeldCall();
		Future<?> held = hold("f", call);
		long token = call.awaitEntered();

		TakenLock taken = this.locks.take("job", "f");
		assertThat(taken.token()).isGreaterThan(token);
		StoredLock stored = DistLockAssert.assertHeld("job", "f");
		assertThat(stored.holder()).isEqualTo(taken.holder()).isNotEqualTo(holderHere("f"));
		assertThat(stored.token()).isEqualTo(taken.token());
		assertThatExceptionOfType(AssertionError.class).isThrownBy(() -> DistLockAssert.assertNotHeld("job", "f"))
			.withMessageContaining("but the other holder that DistLocks.take gave it to holds it");

		call.finish();
		assertThat(lockLost(held).getToken()).isEqualTo(token);
		// The former holder's release removed nothing: the lock is still the new holder's.
		assertThat(DistLockAssert.assertHeld("job", "f").holder()).isEqualTo(taken.holder());
		assertThat(taken.release()).isTrue();
		DistLockAssert.assertNotHeld("job", "f");
	}

	@Test
	void aFreeLockCanBeTakenToo() {
		TakenLock taken = this.locks.take("job", "g");
		assertThat(DistLockAssert.assertHeld("job", "g").token()).isEqualTo(taken.token());
		taken.close();
		DistLockAssert.assertNotHeld("job", "g");
	}

	/** Calls the locked method on another thread; it holds lock ("job", key) until the call is finished. */
	private Future<?> hold(String key, HeldCall call) {
		return this.executor.submit(() -> {
			this.work.hold(key, call);
			return null;
		});
	}

	/** The holder id this application's engine stores for its lock ("job", key). */
	private String holderHere(String key) {
		return this.engine.heldLocks()
			.stream()
			.filter((lock) -> lock.name().equals("job") && lock.key().equals(key))
			.map(HeldLockView::holder)
			.findFirst()
			.orElseThrow(() -> new AssertionError("This application holds no lock 'job' for key '" + key + "'"));
	}

	private static LockLostException lockLost(Future<?> call) {
		ExecutionException failure = org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class,
				() -> call.get(10, TimeUnit.SECONDS));
		assertThat(failure.getCause()).isInstanceOf(LockLostException.class);
		return (LockLostException) failure.getCause();
	}

}
