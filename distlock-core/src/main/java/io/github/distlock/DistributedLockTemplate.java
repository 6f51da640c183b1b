package io.github.distlock;

import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

/**
 * Runs code under a distributed lock without an annotation, where the lock's name or key is known only at run time
 * or the locked part is a few lines of a larger method: the counterpart of Spring's {@code TransactionTemplate}.
 *
 * <pre>{@code
 * long token = locks.execute(LockSpec.of("orders", order.id()), (lock) -> {
 *     stock.take(order, lock.token());
 *     return lock.token();
 * });
 * }</pre>
 *
 * A template call is the same as a call to a {@link DistributedLock} method with the same settings, since both run
 * on one lock execution: inside a locked method (or another template call) of the same application, a call for the
 * same name and key enters the lock already held instead of waiting for it; inside a transaction the call joined, the
 * release waits for that transaction; a lost lock ends the call with {@link LockLostException} as the
 * spec's {@link OnLost} says; waiting and holding are observed under the same names. Thread-safe; one per
 * application, from the auto-configuration (a bean of your own replaces it, say a stub in a unit test).
 */
public interface DistributedLockTemplate {

	/**
	 * Runs the work under the lock, waiting for it up to the spec's wait time.
	 * @return what the work returned
	 * @throws LockAcquisitionException if the lock was not acquired: held by another for the whole wait, the store
	 * unreachable, or the thread interrupted while waiting; the work did not run
	 * @throws LockLostException if the lock was lost while the work ran (not with {@link OnLost#IGNORE}); when the
	 * work threw, its exception instead, carrying the loss as suppressed
	 */
	<T extends @Nullable Object> T execute(LockSpec spec, LockCallback<T> work);

	/**
	 * As {@link #execute}, but a lock held by another holder for the whole wait is an answer, not a failure: for
	 * work that someone else doing it now makes unnecessary. A store that cannot be reached, or an interrupted wait,
	 * still throws {@link LockAcquisitionException}: "not acquired" must not hide an outage.
	 * @return the work's result, or that the lock was busy
	 */
	<T extends @Nullable Object> LockAttempt<T> tryExecute(LockSpec spec, LockCallback<T> work);

	/**
	 * Acquires the lock on the calling thread, starts the work, and keeps the lock until the stage the work returns
	 * completes (normally, exceptionally, on whichever thread); the watchdog renews it until then. The calling
	 * thread leaves the lock once the work has returned its stage.
	 * <p>
	 * The stage returned completes after the lock has been released, with the work's own result or exception; with
	 * {@link LockLostException} if the lock was lost meanwhile (with {@link OnLost#INTERRUPT} the work's stage is
	 * cancelled at the loss; with {@link OnLost#IGNORE} the result stands). Cancelling the returned stage does not
	 * release the lock before the work's stage completes. Code the work runs on other threads is not inside the lock
	 * as far as reentrancy goes: a call there for the same name and key waits for this very lock, and fails after its
	 * wait time.
	 * @return the stage to wait on; null if the work returned null (the lock is then released at once)
	 * @throws LockAcquisitionException if the lock was not acquired; the work did not start
	 * @throws RuntimeException what the work threw before returning a stage; the lock is released at once
	 */
	<T extends @Nullable Object> @Nullable CompletionStage<T> executeAsync(LockSpec spec,
			Supplier<? extends @Nullable CompletionStage<T>> work);

}
