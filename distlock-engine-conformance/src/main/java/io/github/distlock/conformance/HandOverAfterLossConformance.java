package io.github.distlock.conformance;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.junit.jupiter.api.Test;

import io.github.distlock.LockLostListener;
import io.github.distlock.engine.LockEngine;
import io.github.distlock.engine.LockHandle;
import io.github.distlock.engine.LockRequest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * For an engine that frees a lock given up at its lease deadline itself (it deletes the lock's key or node, which
 * hands the lock to the next waiter): it tells the holder first, so that nobody enters while the holder has not heard.
 * An engine whose store frees the lock by the store's own clock (a Redis key's expiry, a database row's lease) has no
 * hand-over to hold back, and does not take this case.
 * <p>
 * Taken by a conformance suite that implements it; {@link EngineSuiteSupport} provides its two methods.
 */
public interface HandOverAfterLossConformance {

	/** A new engine reporting its losses to the listener, crashed after the test. */
	LockEngine engineReportingTo(LockLostListener listener);

	/** Threads for acquisitions that wait, shut down after each test. */
	ExecutorService waiters();

	@Test
	default void aLockGivenUpAtItsDeadlineGoesToTheNextWaiterOnlyOnceItsHolderWasTold() throws Exception {
		// The holder's listener is held back: the next waiter must not get the lock while the holder has not heard.
		CountDownLatch told = new CountDownLatch(1);
		CountDownLatch listenerMayReturn = new CountDownLatch(1);
		LockEngine holder = engineReportingTo((loss) -> {
			told.countDown();
			try {
				listenerMayReturn.await(10, TimeUnit.SECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		});
		// Not renewed: the lock is given up at its deadline, half a second on.
		LockHandle held = holder
			.acquire(new LockRequest("conformance", "handed-on", Duration.ofMillis(500), Duration.ZERO, false, null));
		LockEngine waiterEngine = engineReportingTo((loss) -> {
		});
		Future<LockHandle> waiter = waiters().submit(() -> waiterEngine
			.acquire(new LockRequest("conformance", "handed-on", Duration.ofSeconds(10), Duration.ofSeconds(10), true,
					null)));
		assertThat(told.await(5, TimeUnit.SECONDS)).as("the holder told of the lease's end").isTrue();
		// The listener holds the hand-over back for a second: the waiter must still be waiting at its end.
		assertThatExceptionOfType(TimeoutException.class).isThrownBy(() -> waiter.get(1, TimeUnit.SECONDS));
		listenerMayReturn.countDown();
		LockHandle next = waiter.get(5, TimeUnit.SECONDS);
		assertThat(next.token()).isGreaterThan(held.token());
		assertThat(next.release()).isTrue();
	}

}
