package io.github.distlock.engine;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

import io.github.distlock.LockMode;
import io.github.distlock.LostLock;

/**
 * One acquisition of a lock. Not tied to a thread: any thread may release it.
 */
public interface LockHandle {

	/** The lock's namespace. */
	String name();

	/** The lock's key within its namespace. */
	String key();

	/** Whether this is an exclusive lock or a side of a read/write lock. */
	default LockMode mode() {
		return LockMode.EXCLUSIVE;
	}

	/** When positive, this lock is one of that many permits of its name and key; zero for a plain lock. */
	default int permits() {
		return 0;
	}

	/**
	 * The fencing token issued with this acquisition: larger than every token issued before it for the same lock.
	 */
	long token();

	/**
	 * Monotonic time ({@link System#nanoTime()}) until which the store is known to keep this lock, as of the last
	 * successful acquisition or renewal: reckoned from when that request was sent, less an allowance for clocks that
	 * run apart. Past it with no renewal confirmed, the lock is lost.
	 */
	long leaseDeadlineNanos();

	/** Whether the engine has found that this holder no longer owns the lock. */
	default boolean isLost() {
		return lossReason() != null;
	}

	/** How the lock was found lost, or null while it is held (or after a clean release). */
	LostLock.@Nullable Reason lossReason();

	/**
	 * Lets go of this lock if it is lost, quietly: a grant can arrive lost (its lease ran out by the holder's clock
	 * while the request was on its way), and then nothing may start under it.
	 * @return whether it was lost, so let go of
	 */
	default boolean releaseIfLost() {
		if (!isLost()) {
			return false;
		}
		try {
			release();
		}
		catch (RuntimeException ex) {
			// A lost lock is let go of without a round trip on every leased engine; if one did try and failed, the
			// lease frees the lock, and the loss has been reported already.
		}
		return true;
	}

	/**
	 * Asks the store whether this holder still owns the lock (one round trip). A lock found not owned becomes lost
	 * and is reported. When the store cannot be reached the answer is whether the lease is known to be alive.
	 */
	boolean verify();

	/**
	 * Runs the action (once, on the thread that finds the loss) if this lock is lost while held; at once if it
	 * already is.
	 */
	void whenLost(Runnable action);

	/**
	 * Makes the store keep this lock for at least {@code ttl} from now, if this holder still owns it: one round trip,
	 * never shortening the lease, and never past the request's {@code maxLease}. Meant for locks the engine does not
	 * renew ({@code autoRenew = false}), whose holder knows it needs longer; the next renewal of a renewed lock sets
	 * its lease back to the request's.
	 * @return whether the lock now lives at least that long (or until {@code maxLease}); false when this handle is
	 * not held (released, being released, or lost before), when the store says the lock is no longer this holder's
	 * (it is then lost and reported, as by {@link #verify}), when {@code maxLease} leaves nothing to extend, or when
	 * the store could not be reached (the lease granted earlier still runs)
	 * @throws IllegalArgumentException if {@code ttl} is shorter than 1 ms
	 * @throws UnsupportedOperationException if the engine cannot extend a lock
	 */
	default boolean extend(Duration ttl) {
		throw new UnsupportedOperationException(getClass().getName() + " cannot extend a lock");
	}

	/**
	 * Releases the lock later: if this holder still owns it, the store keeps it exactly {@code ttl} more (shorter or
	 * longer than the lease left) and then frees it, whatever becomes of this process. The handle is done with at
	 * once, as by {@link #release()}: no renewal, and no loss reported when the lock expires. For locks that must stay
	 * held a minimum time after their work ends, as ShedLock's {@code lockAtLeastFor} asks.
	 * @return {@code true} if the lock was still ours and now expires in {@code ttl}; {@code false} if it had been
	 * lost (reported as by {@link #release()})
	 * @throws IllegalArgumentException if {@code ttl} is shorter than 1 ms
	 * @throws UnsupportedOperationException if the engine cannot set a lock's expiry; the handle is then untouched
	 * @throws RuntimeException if the store could not be reached; the lock then expires with its lease
	 */
	default boolean releaseAfter(Duration ttl) {
		throw new UnsupportedOperationException(getClass().getName() + " cannot release a lock later");
	}

	/**
	 * Releases the lock if this holder still owns it, and stops renewing it. Never removes another holder's lock.
	 * @return {@code true} if the lock was still ours and is now released, {@code false} if it had been lost
	 * @throws RuntimeException if the store could not be reached; the lock then expires with its lease
	 */
	boolean release();

}
