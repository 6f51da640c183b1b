package io.github.distlock.shedlock;

import io.github.distlock.engine.LockHandle;

/**
 * One run of a job under its lock: the acquisition that a ShedLock lock and every lock extended from it share.
 */
final class LockRun {

	final String lockName;

	final LockHandle handle;

	private volatile boolean ended;

	LockRun(String lockName, LockHandle handle) {
		this.lockName = lockName;
		this.handle = handle;
	}

	boolean ended() {
		return this.ended;
	}

	/** The job is over; its lock may yet be held until its lockAtLeastUntil. */
	void end() {
		this.ended = true;
		DistLockShedLock.ended(this);
	}

}
