package io.github.distlock;

import io.github.distlock.engine.DisplayedKey;

/**
 * The lock of a {@link DistributedLock} method was lost while the method ran, so its work may have overlapped with
 * another holder's. A transaction the method ran in, if it ran in one, was not committed while the lock was lost
 * (unless the method chose {@link OnLost#IGNORE}, which never throws this).
 */
public class LockLostException extends RuntimeException {

	private final String lockName;

	private final String lockKey;

	private final long token;

	private final LostLock.Reason reason;

	public LockLostException(String lockName, String lockKey, long token, LostLock.Reason reason) {
		super("Lock '" + lockName + "' for key '" + DisplayedKey.of(lockKey) + "' (token " + token
				+ ") was lost while the method ran (" + reason + "); its work may have overlapped with another "
				+ "holder's. A transaction it ran in, if any, was not committed while the lock was lost");
		this.lockName = lockName;
		this.lockKey = lockKey;
		this.token = token;
		this.reason = reason;
	}

	public String getLockName() {
		return this.lockName;
	}

	public String getLockKey() {
		return this.lockKey;
	}

	/** The fencing token of the lost acquisition. */
	public long getToken() {
		return this.token;
	}

	/** How the loss was found. */
	public LostLock.Reason getReason() {
		return this.reason;
	}

}
