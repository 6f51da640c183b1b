package io.github.distlock;

import java.lang.reflect.UndeclaredThrowableException;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

import io.github.distlock.engine.LockHandle;
import io.github.distlock.engine.LockRequest;
import io.github.distlock.interceptor.LockDefaults;
import io.github.distlock.interceptor.LockExecution;

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
 * on one {@link LockExecution}: inside a locked method (or another template call) of the same application, a call
 * for the same name and key enters the lock already held instead of waiting for it; inside a transaction the call
 * joined, the release waits for that transaction; a lost lock ends the call with {@link LockLostException} as the
 * spec's {@link OnLost} says; waiting and holding are observed under the same names. Thread-safe; one per
 * application.
 */
public class DistributedLockTemplate {

	private final LockExecution execution;

	private final LockDefaults defaults;

	/**
	 * @param execution the application's lock execution, shared with the {@code @DistributedLock} advice
	 * @param defaults what a spec's unset settings take
	 */
	public DistributedLockTemplate(LockExecution execution, LockDefaults defaults) {
		this.execution = Objects.requireNonNull(execution, "execution");
		this.defaults = Objects.requireNonNull(defaults, "defaults");
	}

	/**
	 * Runs the work under the lock, waiting for it up to the spec's wait time.
	 * @return what the work returned
	 * @throws LockAcquisitionException if the lock was not acquired: held by another for the whole wait, the store
	 * unreachable, or the thread interrupted while waiting; the work did not run
	 * @throws LockLostException if the lock was lost while the work ran (not with {@link OnLost#IGNORE}); when the
	 * work threw, its exception instead, carrying the loss as suppressed
	 */
	public <T extends @Nullable Object> T execute(LockSpec spec, LockCallback<T> work) {
		Objects.requireNonNull(work, "work");
		return run(spec, work, null);
	}

	/**
	 * As {@link #execute}, but a lock held by another holder for the whole wait is an answer, not a failure: for
	 * work that someone else doing it now makes unnecessary. A store that cannot be reached, or an interrupted wait,
	 * still throws {@link LockAcquisitionException}: "not acquired" must not hide an outage.
	 * @return the work's result, or that the lock was busy
	 */
	public <T extends @Nullable Object> LockAttempt<T> tryExecute(LockSpec spec, LockCallback<T> work) {
		Objects.requireNonNull(work, "work");
		boolean[] started = new boolean[1];
		try {
			return LockAttempt.acquired(run(spec, work, started));
		}
		catch (LockAcquisitionException ex) {
			if (started[0] || ex.isStoreUnavailable() || ex.getCause() instanceof InterruptedException) {
				// Thrown by the work itself (another lock it needed), or not a busy lock.
				throw ex;
			}
			return LockAttempt.notAcquired(ex);
		}
	}

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
	public <T extends @Nullable Object> @Nullable CompletionStage<T> executeAsync(LockSpec spec,
			Supplier<? extends @Nullable CompletionStage<T>> work) {
		Objects.requireNonNull(work, "work");
		try {
			return this.execution.runStage(request(spec), onLost(spec), work::get);
		}
		catch (RuntimeException | Error ex) {
			throw ex;
		}
		catch (Throwable ex) {
			throw new UndeclaredThrowableException(ex);
		}
	}

	// The execution hands back what the work returned: a T, null only where T admits null. NullAway, outside its
	// JSpecify mode, takes a type variable for non-null and so cannot see that the cast keeps T's nullness.
	@SuppressWarnings({ "unchecked", "NullAway" })
	private <T extends @Nullable Object> T run(LockSpec spec, LockCallback<T> work, boolean @Nullable [] started) {
		try {
			return (T) this.execution.run(request(spec), onLost(spec), () -> {
				if (started != null) {
					started[0] = true;
				}
				LockHandle held = LockExecution.currentHandle();
				if (held == null) {
					throw new IllegalStateException("The template's work runs outside its lock: no lock on this thread");
				}
				return work.doInLock(LockContext.of(held));
			});
		}
		catch (RuntimeException | Error ex) {
			throw ex;
		}
		catch (Throwable ex) {
			// Neither the work nor the execution throws checked exceptions; a sneaky throw is passed on wrapped.
			throw new UndeclaredThrowableException(ex);
		}
	}

	private LockRequest request(LockSpec spec) {
		Objects.requireNonNull(spec, "spec");
		Duration maxLease = (spec.maxLease() != null) ? spec.maxLease() : this.defaults.maxLease();
		return new LockRequest(spec.name(), spec.key(), orDefault(spec.lease(), this.defaults.lease()),
				orDefault(spec.waitTime(), this.defaults.waitTime()), spec.autoRenew(), maxLease, spec.mode(),
				spec.permits());
	}

	private OnLost onLost(LockSpec spec) {
		return (spec.onLost() != OnLost.DEFAULT) ? spec.onLost() : this.defaults.onLost();
	}

	private static <V> V orDefault(@Nullable V value, V fallback) {
		return (value != null) ? value : fallback;
	}

}
