package io.github.distlock.integration;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.integration.support.locks.DistributedLock;

import io.github.distlock.LockAcquisitionException;
import io.github.distlock.LostLock;
import io.github.distlock.fixtures.redis.RedisExtension;
import io.github.distlock.fixtures.redis.RespClient;
import io.github.distlock.redis.RedisLockEngine;
import io.github.distlock.redis.RedisLockKeys;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * The registry on the Redis engine and a real redis-server: two registries stand for two instances of an application,
 * each with an engine and a client of its own.
 */
class DistLockRegistryIntegrationTests {

	@RegisterExtension
	static final RedisExtension redis = RedisExtension.anyServer();

	private static final RedisLockKeys keys = new RedisLockKeys("distlock");

	private final BlockingQueue<LostLock> lost = new LinkedBlockingQueue<>();

	private final RedisEngines redisEngines = new RedisEngines(redis);

	private final List<RedisLockEngine> engines = new ArrayList<>();

	@AfterEach
	void close() {
		this.redisEngines.close();
	}

	private RedisLockEngine engine() {
		RedisLockEngine engine = this.redisEngines.create(this.lost::add);
		this.engines.add(engine);
		return engine;
	}

	private DistLockRegistry registry() {
		return new DistLockRegistry(engine());
	}

	private static String storeKey(String key) {
		return keys.lockKey(DistLockRegistry.DEFAULT_NAME, key);
	}

	@Test
	void aLockIsHeldByOneInstanceAtATime() throws Exception {
		DistLockRegistry first = registry();
		DistLockRegistry second = registry();
		Lock mine = first.obtain("order-1");
		mine.lock();
		try (RespClient resp = redis.client()) {
			assertThat(resp.get(storeKey("order-1"))).as("the lock in Redis").isNotNull();
		}
		assertThat(second.obtain("order-1").tryLock()).isFalse();
		assertThat(second.obtain("order-1").tryLock(100, TimeUnit.MILLISECONDS)).isFalse();
		assertThat(second.obtain("order-2").tryLock()).as("another key").isTrue();
		second.obtain("order-2").unlock();
		long firstToken = first.fencingToken("order-1");
		mine.unlock();
		try (RespClient resp = redis.client()) {
			assertThat(resp.get(storeKey("order-1"))).as("released in Redis").isNull();
		}
		assertThatIllegalStateException().isThrownBy(() -> first.fencingToken("order-1"))
			.withMessageContaining("not held by the current thread");
		assertThat(second.obtain("order-1").tryLock()).isTrue();
		assertThat(second.fencingToken("order-1")).as("the next holder's token").isGreaterThan(firstToken);
		second.obtain("order-1").unlock();
		assertThat(this.lost).isEmpty();
	}

	@Test
	void aWaitingInstanceGetsTheLockWhenItsHolderUnlocks() throws Exception {
		DistLockRegistry first = registry();
		DistLockRegistry second = registry();
		first.obtain("handed-over").lock();
		CompletableFuture<Boolean> waiting = CompletableFuture.supplyAsync(() -> {
			Lock lock = second.obtain("handed-over");
			try {
				boolean got = lock.tryLock(30, TimeUnit.SECONDS);
				if (got) {
					lock.unlock();
				}
				return got;
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return false;
			}
		});
		awaitWaiter(second, "handed-over");
		assertThat(waiting).isNotDone();
		first.obtain("handed-over").unlock();
		assertThat(waiting.get(30, TimeUnit.SECONDS)).as("the waiter's tryLock").isTrue();
	}

	/** Until the other instance's waiter is queued in Redis for the key. */
	private void awaitWaiter(DistLockRegistry registry, String key) throws InterruptedException {
		RedisLockEngine engine = this.engines.get(this.engines.size() - 1);
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
		while (engine.waitingCount() == 0) {
			assertThat(System.nanoTime() - deadline).as("a waiter for %s of %s within 10 s", key, registry).isNegative();
			Thread.sleep(5);
		}
	}

	@Test
	void aLockIsReentrantForItsThreadAndHeldInTheStoreOnce() throws Exception {
		DistLockRegistry first = registry();
		DistLockRegistry second = registry();
		DistributedLock lock = first.obtain("reentrant");
		lock.lock();
		assertThat(lock.tryLock()).as("a nested hold").isTrue();
		lock.lock(Duration.ofSeconds(5));
		assertThat(this.engines.get(0).heldCount()).as("locks held in Redis").isEqualTo(1);
		lock.unlock();
		lock.unlock();
		assertThat(second.obtain("reentrant").tryLock()).as("after two of three unlocks").isFalse();
		lock.unlock();
		assertThat(this.engines.get(0).heldCount()).isZero();
		assertThat(second.obtain("reentrant").tryLock()).as("after the last unlock").isTrue();
		second.obtain("reentrant").unlock();
	}

	@Test
	void anotherThreadOfTheSameInstanceWaitsAndCannotUnlock() throws Exception {
		DistLockRegistry registry = registry();
		Lock lock = registry.obtain("threads");
		lock.lock();
		try {
			CompletableFuture<Boolean> other = CompletableFuture.supplyAsync(lock::tryLock);
			assertThat(other.get(10, TimeUnit.SECONDS)).as("another thread's tryLock").isFalse();
			CompletableFuture<Void> unlocking = CompletableFuture.runAsync(lock::unlock);
			assertThat(unlocking).failsWithin(Duration.ofSeconds(10))
				.withThrowableThat()
				.havingRootCause()
				.isInstanceOf(IllegalStateException.class)
				.withMessageContaining("not held by the current thread");
		}
		finally {
			lock.unlock();
		}
		assertThatIllegalStateException().isThrownBy(lock::unlock).withMessageContaining("not held");
	}

	@Test
	void aLockLostWhileHeldIsToldToItsHolderOnceAndTheLockCanBeTakenAgain() throws Exception {
		DistLockRegistry first = registry();
		DistLockRegistry second = registry();
		Duration lease = Duration.ofSeconds(1);
		DistributedLock lock = first.obtain("lost");
		lock.lock(lease);
		try (RespClient resp = redis.client()) {
			resp.call("DEL", storeKey("lost"));
		}
		// The next renewal, a third of the lease from the grant, finds the key gone; the lease bounds the wait.
		LostLock loss = this.lost.poll(2 * lease.toMillis(), TimeUnit.MILLISECONDS);
		assertThat(loss).as("the loss, reported to the engine's listener").isNotNull();
		assertThat(loss.key()).isEqualTo("lost");
		assertThat(second.obtain("lost").tryLock()).as("another instance takes the lock").isTrue();
		second.obtain("lost").unlock();
		assertThatIllegalStateException().isThrownBy(lock::tryLock)
			.withMessageContaining("was lost while held")
			.withMessageContaining("NOT_OWNED");
		lock.unlock();
		assertThat(lock.tryLock()).as("the holder takes the lock again").isTrue();
		lock.unlock();
		assertThat(this.lost).isEmpty();
	}

	@Test
	void anUnlockAfterAnUntoldLossSaysSo() throws Exception {
		DistLockRegistry registry = registry();
		Duration lease = Duration.ofSeconds(1);
		DistributedLock lock = registry.obtain("lost-at-unlock");
		lock.lock(lease);
		try (RespClient resp = redis.client()) {
			resp.call("DEL", storeKey("lost-at-unlock"));
		}
		assertThat(this.lost.poll(2 * lease.toMillis(), TimeUnit.MILLISECONDS)).as("the loss").isNotNull();
		assertThatIllegalStateException().isThrownBy(lock::unlock).withMessageContaining("was lost while held");
		assertThatIllegalStateException().as("the hold ended all the same").isThrownBy(lock::unlock)
			.withMessageContaining("not held by the current thread");
		assertThat(lock.tryLock()).isTrue();
		lock.unlock();
	}

	@Test
	void aLockHeldPastItsLeaseIsKeptByTheWatchdog() throws Exception {
		DistLockRegistry first = registry();
		DistLockRegistry second = registry();
		Duration lease = Duration.ofMillis(600);
		DistributedLock lock = first.obtain("renewed");
		lock.lock(lease);
		// Three leases: held unrenewed, the key would be gone after one.
		long until = System.nanoTime() + 3 * lease.toNanos();
		while (System.nanoTime() - until < 0) {
			assertThat(second.obtain("renewed").tryLock()).as("another instance, while the lock is held").isFalse();
			Thread.sleep(lease.toMillis() / 4);
		}
		lock.unlock();
		assertThat(this.lost).isEmpty();
	}

	@Test
	void renewLockGivesTheHoldersLockAtLeastTheTimeAskedFor() throws Exception {
		DistLockRegistry registry = registry();
		assertThatIllegalStateException().isThrownBy(() -> registry.renewLock("renew"))
			.withMessageContaining("not held by the current thread");
		DistributedLock lock = registry.obtain("renew");
		lock.lock(Duration.ofSeconds(5));
		try (RespClient resp = redis.client()) {
			registry.renewLock("renew", Duration.ofSeconds(60));
			assertThat((Long) resp.call("PTTL", storeKey("renew"))).as("the time to live in Redis, in ms")
				.isGreaterThan(Duration.ofSeconds(5).toMillis());
			registry.renewLock("renew");
			CompletableFuture<Void> otherThread = CompletableFuture.runAsync(() -> registry.renewLock("renew"));
			assertThat(otherThread).failsWithin(Duration.ofSeconds(10))
				.withThrowableThat()
				.havingRootCause()
				.isInstanceOf(IllegalStateException.class);
		}
		finally {
			lock.unlock();
		}
	}

	@Test
	void unusedLocksAreForgottenAndHeldOnesKept() throws Exception {
		DistLockRegistry registry = registry();
		DistributedLock unused = registry.obtain("unused");
		DistributedLock held = registry.obtain("held");
		assertThat(registry.obtain("unused")).as("the same key's lock, while kept").isSameAs(unused);
		held.lock();
		try {
			registry.expireUnusedOlderThan(0);
			assertThat(registry.obtain("unused")).as("a new lock object").isNotSameAs(unused);
			assertThat(registry.obtain("held")).as("a held lock is kept").isSameAs(held);
		}
		finally {
			held.unlock();
		}
	}

	@Test
	void badInputIsRefusedNamingIt() {
		DistLockRegistry registry = registry();
		assertThatIllegalArgumentException().isThrownBy(() -> registry.obtain(42))
			.withMessage("A DistLockRegistry lock key must be a String, got java.lang.Integer '42'");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new DistLockRegistry(this.engines.get(0), "registry", Duration.ZERO))
			.withMessageContaining("lease must be at least 1ms");
		assertThatExceptionOfType(UnsupportedOperationException.class)
			.isThrownBy(() -> registry.obtain("conditions").newCondition());
	}

	/**
	 * A Redis that holds every write for longer than the command timeout: the attempt fails naming the store, and the
	 * local lock is given back. The attempt, held in Redis meanwhile, may still take the lock once Redis lets it run,
	 * for nobody; the engine's quiet release of it can run first, on another connection, so such a lock may stand
	 * until its lease ends, which here is short.
	 */
	@Test
	void aStoreThatCannotBeReachedIsAFailureNotABusyLock() throws Exception {
		Duration lease = Duration.ofSeconds(1);
		DistLockRegistry registry = new DistLockRegistry(engine(), DistLockRegistry.DEFAULT_NAME, lease);
		DistributedLock lock = registry.obtain("paused");
		try (RespClient resp = redis.client()) {
			resp.call("CLIENT", "PAUSE", "6000", "WRITE");
			try {
				assertThatExceptionOfType(LockAcquisitionException.class)
					.isThrownBy(() -> lock.tryLock(100, TimeUnit.MILLISECONDS))
					.withCauseInstanceOf(RuntimeException.class);
			}
			finally {
				resp.call("CLIENT", "UNPAUSE");
			}
			assertThatIllegalStateException().as("the local lock was given back").isThrownBy(lock::unlock)
				.withMessageContaining("not held by the current thread");
			// Whatever the late attempt left expires with its lease (Redis keeps a key at most its time to live).
			long until = System.nanoTime() + 2 * lease.toNanos();
			while (resp.get(storeKey("paused")) != null) {
				assertThat(System.nanoTime() - until).as("the late attempt's lock, gone within two leases")
					.isNegative();
				Thread.sleep(lease.toMillis() / 20);
			}
		}
		assertThat(lock.tryLock(5, TimeUnit.SECONDS)).isTrue();
		lock.unlock();
	}

	@Test
	void anInterruptedTryLockKeepsTheInterruptAndLeavesTheLockUsable() throws Exception {
		DistLockRegistry registry = registry();
		DistributedLock lock = registry.obtain("interrupted");
		Thread.currentThread().interrupt();
		boolean got;
		try {
			got = lock.tryLock();
		}
		finally {
			assertThat(Thread.interrupted()).as("the interrupt, kept for the caller").isTrue();
		}
		if (got) {
			lock.unlock();
		}
		assertThatIllegalStateException().as("no hold left behind").isThrownBy(lock::unlock);
		CompletableFuture<Boolean> other = CompletableFuture.supplyAsync(() -> {
			boolean taken = lock.tryLock();
			if (taken) {
				lock.unlock();
			}
			return taken;
		});
		assertThat(other.get(10, TimeUnit.SECONDS)).as("another thread takes the lock").isTrue();
	}

}
