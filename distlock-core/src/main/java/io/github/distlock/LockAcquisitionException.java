package io.github.distlock;

import io.github.distlock.engine.DisplayedKey;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * Thrown when a lock could not be acquired: another holder kept it for the whole wait, or the lock store could not
 * be reached in time (then {@link #getCause()} says why).
 */
public class LockAcquisitionException extends RuntimeException {

	private final String lockName;

	private final String lockKey;

	private final Duration waited;

	/**
	 * @param cause why the store could not be reached, or the interruption; null when another holder kept the lock
	 */
	public LockAcquisitionException(String lockName, String lockKey, Duration waited, @Nullable Throwable cause) {
		super(message(lockName, lockKey, waited, cause), cause);
		this.lockName = lockName;
		this.lockKey = lockKey;
		this.waited = waited;
	}

	private static String message(String name, String key, Duration waited, @Nullable Throwable cause) {
		String reason;
		if (cause == null) {
			reason = "it is held by another holder";
		}
		else if (cause instanceof InterruptedException) {
			reason = "the caller was interrupted while waiting";
		}
		else {
			reason = "the lock store could not be reached: " + storeProblem(cause);
		}
		return "Could not acquire lock '" + name + "' for key '" + DisplayedKey.of(key) + "' within " + waited.toMillis() + " ms: "
				+ reason;
	}

	/**
	 * The client's description of the failure, without the command and connection it appends (which hold the key
	 * unescaped and server addresses), escaped and cut like a key.
	 */
	private static String storeProblem(Throwable cause) {
		String message = String.valueOf(cause.getMessage());
		for (String detail : new String[] { " Command:", " channel:", " params:" }) {
			int at = message.indexOf(detail);
			if (at >= 0) {
				message = message.substring(0, at);
			}
		}
		return cause.getClass().getSimpleName() + ": " + DisplayedKey.of(message.strip());
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
