package io.github.distlock;

import io.github.distlock.engine.DisplayedKey;

/**
 * A call to a {@link DistributedLock#reentrant() non-reentrant} method was made while the calling thread (or, for a
 * {@code Mono} or {@code Flux} method, the subscribing pipeline) already held its lock (same name and key). Thrown at once, before the method runs and without touching the lock, which the
 * outer call keeps and releases as usual.
 * <p>
 * Not a {@link LockAcquisitionException}: the lock is not busy with someone else, the call is nested where it must
 * not be, which waiting or a fallback would not cure.
 */
public class LockReentryException extends IllegalStateException {

	private final String lockName;

	private final String lockKey;

	private final String method;

	public LockReentryException(String lockName, String lockKey, String method) {
		this(lockName, lockKey, method, "this thread");
	}

	/**
	 * @param holder who holds the lock, for the message: "this thread", "this reactive pipeline"
	 */
	public LockReentryException(String lockName, String lockKey, String method, String holder) {
		this(lockName, lockKey, method, "Lock '" + lockName + "' for key '" + DisplayedKey.of(lockKey)
				+ "' is already held by " + holder + ", and " + method + " does not re-enter it (reentrant = false): "
				+ "the call was made inside a call that holds it", true);
	}

	/** For subclasses that word the refusal themselves. */
	protected LockReentryException(String lockName, String lockKey, String method, String message, boolean messageGiven) {
		super(message);
		this.lockName = lockName;
		this.lockKey = lockKey;
		this.method = method;
	}

	/** The lock's name (its namespace). */
	public String getLockName() {
		return this.lockName;
	}

	/** The evaluated key. */
	public String getLockKey() {
		return this.lockKey;
	}

	/** The refused method in {@code Class#method} form. */
	public String getMethod() {
		return this.method;
	}

}
