package io.github.distlock;

import java.time.Duration;

/**
 * Thrown when a lock could not be acquired: another holder kept it for the whole wait, or the lock store could not
 * be reached in time (then {@link #getCause()} says why).
 */
public class LockAcquisitionException extends RuntimeException {

	private final String lockName;

	private final String lockKey;

	private final Duration waited;

	public LockAcquisitionException(String lockName, String lockKey, Duration waited, Throwable cause) {
		super(message(lockName, lockKey, waited, cause), cause);
		this.lockName = lockName;
		this.lockKey = lockKey;
		this.waited = waited;
	}

	private static String message(String name, String key, Duration waited, Throwable cause) {
		String reason;
		if (cause == null) {
			reason = "it is held by another holder";
		}
		else if (cause instanceof InterruptedException) {
			reason = "the caller was interrupted while waiting";
		}
		else {
			reason = "the lock store could not be reached: " + cause.getMessage();
		}
		return "Could not acquire lock '" + name + "' for key '" + key + "' within " + waited.toMillis() + " ms: "
				+ reason;
	}

	/** The lock's name (its namespace). */
	public String getLockName() {
		return this.lockName;
	}

	/** The evaluated key. */
	public String getLockKey() {
		return this.lockKey;
	}

	/** How long the caller waited before giving up. */
	public Duration getWaited() {
		return this.waited;
	}

	/** Whether the lock store was unreachable, as opposed to the lock being held by someone else. */
	public boolean isStoreUnavailable() {
		return getCause() != null && !(getCause() instanceof InterruptedException);
	}

}
