package io.github.distlock.execution;

import io.github.distlock.engine.LockHandle;

/**
 * Interrupts the thread running a locked method when its lock is lost ({@code OnLost.INTERRUPT}), but only while
 * the method runs: once disarmed, a late loss report must not interrupt whatever the thread does next.
 */
final class LossInterruption {

	private final Thread thread;

	private boolean armed = true;

	private boolean fired;

	private LossInterruption(Thread thread) {
		this.thread = thread;
	}

	static LossInterruption arm(LockHandle handle) {
		LossInterruption interruption = new LossInterruption(Thread.currentThread());
		handle.whenLost(interruption::fire);
		return interruption;
	}

	private synchronized void fire() {
		if (this.armed) {
			this.fired = true;
			this.thread.interrupt();
		}
	}

	synchronized boolean fired() {
		return this.fired;
	}

	/** Stops interrupting; clears the interrupt this caused, since the caller learns of the loss by exception. */
	synchronized void disarm() {
		this.armed = false;
		if (this.fired) {
			Thread.interrupted();
		}
	}

}
