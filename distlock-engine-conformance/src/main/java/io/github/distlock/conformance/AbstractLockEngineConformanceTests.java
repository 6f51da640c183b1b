package io.github.distlock.conformance;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import io.github.distlock.LockAcquisitionException;
import io.github.distlock.engine.LockEngine;
import io.github.distlock.engine.LockHandle;
import io.github.distlock.engine.LockRequest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * What every {@link LockEngine} must do, run against a real store: one holder at a time, waiting, fencing tokens,
 * locks taken together and a crashed holder; with the leases' behaviour from {@link AbstractLeaseConformanceTests} and
 * leader election from {@link AbstractLeaderElectionConformanceTests}.
 * A backend proves itself by extending this class and filling in the hooks.
 */
public abstract class AbstractLockEngineConformanceTests extends AbstractLeaderElectionConformanceTests {

	@Test
	void aHeldLockIsNotGrantedTwiceAndIsFreeAfterRelease() throws Exception {
		LockEngine first = engine();
		LockEngine second = engine();
		LockHandle held = first.acquire(request("a", Duration.ZERO));
		assertThat(lockExists("conformance", "a")).isTrue();

		assertThatExceptionOfType(LockAcquisitionException.class)
			.isThrownBy(() -> second.acquire(request("a", Duration.ZERO)))
			.satisfies((ex) -> {
				assertThat(ex.getLockName()).isEqualTo("conformance");
				assertThat(ex.getLockKey()).isEqualTo("a");
				assertThat(ex.isStoreUnavailable()).isFalse();
			});
		assertThatExceptionOfType(LockAcquisitionException.class)
			.as("an engine is not reentrant: every acquire is a new holder")
			.isThrownBy(() -> first.acquire(request("a", Duration.ZERO)));

		assertThat(held.release()).isTrue();
		assertThat(lockExists("conformance", "a")).isFalse();
		second.acquire(request("a", Duration.ZERO)).release();
	}

	@Test
	void differentKeysDoNotBlockEachOther() throws Exception {
		LockEngine engine = engine();
		LockHandle a = engine.acquire(request("a", Duration.ZERO));
		LockHandle b = engine.acquire(request("b", Duration.ZERO));
		LockHandle otherName = engine
			.acquire(new LockRequest("other", "a", Duration.ofSeconds(10), Duration.ZERO, true, null));
		assertThat(List.of(a.release(), b.release(), otherName.release())).containsOnly(true);
	}

	@Test
	void aWaiterGivesUpAfterItsWaitTime() throws Exception {
		LockEngine engine = engine();
		LockHandle held = engine.acquire(request("busy", Duration.ZERO));
		long start = System.nanoTime();
		assertThatExceptionOfType(LockAcquisitionException.class)
			.isThrownBy(() -> engine().acquire(request("busy", Duration.ofMillis(300))))
			.satisfies((ex) -> assertThat(ex.getWaited()).isGreaterThanOrEqualTo(Duration.ofMillis(300)));
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(300));
		held.release();
	}

	@Test
	void aWaiterGetsTheLockWhenItIsReleased() throws Exception {
		LockEngine engine = engine();
		LockHandle held = engine.acquire(request("handover", Duration.ZERO));
		CountDownLatch waiting = new CountDownLatch(1);
		Future<LockHandle> waiter = this.executor.submit(() -> {
			waiting.countDown();
			return engine().acquire(request("handover", Duration.ofSeconds(20)));
		});
		waiting.await();
		awaitWaiterQueued("handover");
		assertThat(waiter.isDone()).isFalse();
		long tokenBefore = held.token();
		held.release();
		LockHandle next = waiter.get(10, TimeUnit.SECONDS);
		assertThat(next.token()).isGreaterThan(tokenBefore);
		next.release();
	}

	/** Returns once a waiter for the key is known to be waiting, as far as the store can tell. */
	protected abstract void awaitWaiterQueued(String key) throws Exception;

	@Test
	void threadsOnSeveralEnginesIncrementACounterExactly() throws Exception {
		List<LockEngine> instances = List.of(engine(), engine(), engine());
		int threads = 12;
		int perThread = 25;
		AtomicInteger inside = new AtomicInteger();
		AtomicInteger overlaps = new AtomicInteger();
		AtomicInteger counter = new AtomicInteger();
		List<Future<?>> futures = new ArrayList<>();
		for (int t = 0; t < threads; t++) {
			LockEngine engine = instances.get(t % instances.size());
			futures.add(this.executor.submit(() -> {
				for (int i = 0; i < perThread; i++) {
					LockHandle handle = engine.acquire(request("counter", Duration.ofSeconds(30)));
					try {
						if (inside.incrementAndGet() != 1) {
							overlaps.incrementAndGet();
						}
						int read = counter.get();
						Thread.yield();
						counter.set(read + 1);
						inside.decrementAndGet();
					}
					finally {
						handle.release();
					}
				}
				return null;
			}));
		}
		for (Future<?> future : futures) {
			future.get(120, TimeUnit.SECONDS);
		}
		assertThat(overlaps).hasValue(0);
		assertThat(counter).hasValue(threads * perThread);
		assertThat(lockExists("conformance", "counter")).isFalse();
	}

	@Test
	void tokensStrictlyIncrease() throws Exception {
		LockEngine engine = engine();
		long previous = 0;
		for (int i = 0; i < 200; i++) {
			LockHandle handle = engine.acquire(request("tokens", Duration.ZERO));
			assertThat(handle.token()).isGreaterThan(previous);
			previous = handle.token();
			handle.release();
		}
	}

	@Test
	void locksTakenTogetherAreAllOrNone() throws Exception {
		LockEngine engine = engine();
		LockEngine other = engine();
		List<LockRequest> requests = List.of(request("set-a", Duration.ZERO), request("set-b", Duration.ZERO),
				request("set-c", Duration.ZERO));
		LockHandle held = other.acquire(request("set-b", Duration.ZERO));
		assertThat(engine.tryAcquireAll(requests)).as("one of them is held elsewhere").isNull();
		assertThat(lockExists("conformance", "set-a")).isFalse();
		assertThat(lockExists("conformance", "set-c")).isFalse();
		assertThat(held.release()).isTrue();

		List<LockHandle> all = engine.tryAcquireAll(requests);
		if (all == null) {
			// The engine takes locks one at a time: callers do so instead, and nothing was taken.
			assertThat(lockExists("conformance", "set-a")).isFalse();
			return;
		}
		assertThat(all).extracting(LockHandle::key).containsExactly("set-a", "set-b", "set-c");
		for (LockHandle handle : all) {
			assertThatExceptionOfType(LockAcquisitionException.class)
				.isThrownBy(() -> other.acquire(request(handle.key(), Duration.ZERO)));
			assertThat(handle.release()).isTrue();
		}
		assertThat(lockExists("conformance", "set-b")).isFalse();
	}

	@Test
	void aCrashedHolderFreesTheLockWithinOneLease() throws Exception {
		LockEngine crashing = newEngine(this.lost::add);
		crashing.acquire(new LockRequest("conformance", "crash", Duration.ofMillis(500), Duration.ZERO, true, null));
		long crashedAt = System.nanoTime();
		crash(crashing);
		LockHandle next = engine().acquire(request("crash", Duration.ofSeconds(5)));
		assertThat(Duration.ofNanos(System.nanoTime() - crashedAt)).isLessThan(Duration.ofMillis(1500));
		next.release();
	}

}
