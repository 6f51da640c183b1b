package io.github.distlock.execution;

import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Future;
import java.util.function.BiConsumer;

import org.jspecify.annotations.Nullable;

import io.github.distlock.LockLostException;
import io.github.distlock.OnLost;
import io.github.distlock.engine.LockHandle;
import io.github.distlock.execution.HeldLocks.HeldLock;

/**
 * Holds a lock until a stage that runs under it completes, then lets go of it and only then completes the stage
 * handed to the caller, so that a caller who sees the result knows the lock is free (or its release left to a
 * transaction).
 * <p>
 * The caller's stage carries the work's own outcome unchanged, unless the lock was lost meanwhile: then it fails
 * with {@link LockLostException} (a failure of the work stays the failure and carries the loss as suppressed), as a
 * synchronous call would, except under {@link OnLost#IGNORE}. Under {@link OnLost#INTERRUPT} a loss cancels the
 * work's stage at once, the asynchronous counterpart of interrupting a thread.
 * <p>
 * Cancelling the caller's stage does not reach the work and does not release the lock: a cancelled
 * {@link CompletableFuture} says nothing about whether the work behind it has stopped, and releasing early would let
 * the next holder in beside it. The lock is released when the work's own stage completes.
 */
final class LockedStage<T extends @Nullable Object> implements BiConsumer<T, @Nullable Throwable> {

	private final LockExecution execution;

	private final HeldLock held;

	private final OnLost onLost;

	private final CompletionStage<T> work;

	private final CompletableFuture<T> result = new CompletableFuture<>();

	/** Set when a loss cancelled the work, so its cancellation is reported as the loss it is. */
	private volatile boolean cancelledByLoss;

	private LockedStage(LockExecution execution, HeldLock held, OnLost onLost, CompletionStage<T> work) {
		this.execution = execution;
		this.held = held;
		this.onLost = onLost;
		this.work = work;
	}

	/**
	 * Watches the work's stage, whose claim on the lock the caller has taken.
	 * @return the stage for the caller
	 */
	static <T extends @Nullable Object> CompletableFuture<T> watch(LockExecution execution, HeldLock held,
			OnLost onLost, CompletionStage<T> work) {
		LockedStage<T> watcher = new LockedStage<>(execution, held, onLost, work);
		if (onLost == OnLost.INTERRUPT) {
			held.handle.whenLost(watcher::cancelWork);
		}
		work.whenComplete(watcher);
		return watcher.result;
	}

	private void cancelWork() {
		if (this.work instanceof Future<?> future && !future.isDone()) {
			this.cancelledByLoss = true;
			try {
				future.cancel(true);
			}
			catch (UnsupportedOperationException ex) {
				// A stage that cannot be cancelled runs on; the loss is reported when it completes.
			}
		}
	}

	@Override
	public void accept(T value, @Nullable Throwable failure) {
		try {
			this.execution.letGo(this.held);
		}
		finally {
			complete(value, failure);
		}
	}

	private void complete(T value, @Nullable Throwable failure) {
		LockHandle handle = this.held.handle;
		boolean lost = handle.isLost() && this.onLost != OnLost.IGNORE;
		if (failure == null) {
			if (lost) {
				this.result.completeExceptionally(LockExecution.lostException(handle));
			}
			else {
				this.result.complete(value);
			}
			return;
		}
		Throwable cause = (failure instanceof CompletionException && failure.getCause() != null) ? failure.getCause()
				: failure;
		if (lost && this.cancelledByLoss && cause instanceof CancellationException) {
			// The cancellation was ours, so the loss is the cause the caller must see.
			LockLostException loss = LockExecution.lostException(handle);
			loss.addSuppressed(cause);
			this.result.completeExceptionally(loss);
			return;
		}
		if (lost && !(cause instanceof LockLostException)) {
			cause.addSuppressed(LockExecution.lostException(handle));
		}
		// Passed on as the work's stage holds it, so get() and join() tell the caller what they would have.
		this.result.completeExceptionally(failure);
	}

}
