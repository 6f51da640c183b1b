package io.github.distlock.engine;

/**
 * One acquisition of a lock. Not tied to a thread: any thread may release it.
 */
public interface LockHandle {

	/** The lock's namespace. */
	String name();

	/** The lock's key within its namespace. */
	String key();

	/**
	 * The fencing token issued with this acquisition: larger than every token issued before it for the same lock.
	 */
	long token();

	/**
	 * Monotonic time ({@link System#nanoTime()}) until which the store is known to keep this lock, as of the last
	 * successful acquisition or renewal.
	 */
	long leaseDeadlineNanos();

	/** Whether the engine has found that this holder no longer owns the lock. */
	boolean isLost();

	/**
	 * Releases the lock if this holder still owns it, and stops renewing it. Never removes another holder's lock.
	 * @return {@code true} if the lock was still ours and is now released, {@code false} if it had been lost
	 * @throws RuntimeException if the store could not be reached; the lock then expires with its lease
	 */
	boolean release();

}
