package io.github.distlock;

import io.github.distlock.engine.DisplayedKey;

/**
 * A call asked for the write lock while the same thread (or reactive pipeline) held the read lock of the same name and
 * key. Thrown at once, before the method runs: a reader waiting for the write lock would wait for every reader to
 * leave, itself included, and two such readers would wait for each other forever. Take the write lock around the
 * whole work instead (a writer may take the read lock inside it).
 */
public class LockUpgradeException extends LockReentryException {

	public LockUpgradeException(String lockName, String lockKey, String method) {
		super(lockName, lockKey, method, "Lock '" + lockName + "' for key '" + DisplayedKey.of(lockKey)
				+ "' is held for reading by this caller, and " + method + " asks for its write lock: a read lock is "
				+ "never upgraded (the wait could never end); take the write lock around the whole work instead", true);
	}

}
