package io.github.distlock.execution;

import org.jspecify.annotations.Nullable;

import io.github.distlock.LockLostException;
import io.github.distlock.OnLost;
import io.github.distlock.execution.HeldLocks.HeldLock;

/**
 * One call inside a lock on its thread, from {@link LockExecution#enter} until it exits: what the call's end must
 * undo, and how a loss meets the call's outcome.
 */
final class EnteredLock {

	private final LockExecution execution;

	private final HeldLocks heldLocks;

	final HeldLock held;

	private final @Nullable HeldLock outer;

	private final @Nullable LossInterruption interruption;

	private final OnLost onLost;

	EnteredLock(LockExecution execution, HeldLocks heldLocks, HeldLock held, @Nullable HeldLock outer,
			@Nullable LossInterruption interruption, OnLost onLost) {
		this.execution = execution;
		this.heldLocks = heldLocks;
		this.held = held;
		this.outer = outer;
		this.interruption = interruption;
		this.onLost = onLost;
	}

	/** Leaves the lock on this thread; the last exit releases it, or leaves that to the transaction. */
	void exit() {
		if (this.interruption != null) {
			this.interruption.disarm();
		}
		if (this.heldLocks.exit(this.held, this.outer)) {
			this.execution.releaseWhenDone(this.held);
		}
	}

	/**
	 * Exits after the work threw.
	 * @return what the caller must see: the work's own exception, with a loss attached; or the loss, when the
	 * exception was the interruption the loss caused
	 */
	Throwable exitFailed(Throwable ex) {
		exit();
		if (this.interruption != null && this.interruption.fired() && ex instanceof InterruptedException) {
			// The interruption was ours, so the loss is the cause the caller must see.
			LockLostException lost = LockExecution.lostException(this.held.handle);
			lost.addSuppressed(ex);
			return lost;
		}
		if (this.held.handle.isLost() && this.onLost != OnLost.IGNORE && !(ex instanceof LockLostException)) {
			// The work's own exception stays the one the caller sees; the loss travels with it.
			ex.addSuppressed(LockExecution.lostException(this.held.handle));
		}
		return ex;
	}

	void throwIfLost() {
		if (this.held.handle.isLost() && this.onLost != OnLost.IGNORE) {
			throw LockExecution.lostException(this.held.handle);
		}
	}

}
