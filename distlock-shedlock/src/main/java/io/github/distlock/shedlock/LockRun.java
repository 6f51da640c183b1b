package io.github.distlock.shedlock;

import io.micrometer.observation.Observation;

import io.github.distlock.engine.LockHandle;
import io.github.distlock.execution.LockObservations;

/**
 * One run of a job under its lock: the acquisition that a ShedLock lock and every lock extended from it share.
 */
final class LockRun {

	final String lockName;

	final LockHandle handle;

	/** {@code distlock.held}, from the lock to the job's end. */
	private final Observation held;

	private volatile boolean ended;

	LockRun(String lockName, LockHandle handle, Observation held) {
		this.lockName = lockName;
		this.handle = handle;
		this.held = held;
	}

	boolean ended() {
		return this.ended;
	}

	/** The job is over; its lock may yet be held until its lockAtLeastUntil. */
	void end() {
		this.ended = true;
		DistLockShedLock.ended(this);
	}

	/**
	 * Stops the run's {@code distlock.held} observation once its unlock has been tried, so that a loss the release
	 * found counts too.
	 */
	void observed() {
		LockObservations.released(this.held, this.handle.isLost());
	}

}
