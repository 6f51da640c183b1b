package io.github.distlock;

import org.jspecify.annotations.Nullable;

/**
 * The lock store refused a command with an error that waiting will not cure: a missing permission, a key of the
 * wrong type, a full memory, a read-only replica. The call fails at once instead of retrying for its whole wait;
 * the message names the store's error and what to change.
 * <p>
 * A store that cannot be reached (or answers too late) is not this: that is a {@link LockAcquisitionException}
 * whose {@link LockAcquisitionException#isStoreUnavailable()} is true.
 */
public class LockStoreException extends RuntimeException {

	private final String lockName;

	private final String lockKey;

	private final String storeError;

	/**
	 * @param storeError the store's error code, such as {@code NOPERM}, {@code WRONGTYPE}, {@code OOM} or
	 * {@code READONLY}
	 * @param message what happened and what to change, shown to users as it is
	 */
	public LockStoreException(String lockName, String lockKey, String storeError, String message,
			@Nullable Throwable cause) {
		super(message, cause);
		this.lockName = lockName;
		this.lockKey = lockKey;
		this.storeError = storeError;
	}

	/** The lock's name (its namespace). */
	public String getLockName() {
		return this.lockName;
	}

	/** The evaluated key. */
	public String getLockKey() {
		return this.lockKey;
	}

	/** The store's error code, such as {@code NOPERM}. */
	public String getStoreError() {
		return this.storeError;
	}

}
