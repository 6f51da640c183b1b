package io.github.distlock;

import java.time.Duration;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

/**
 * The outcome of {@link DistributedLockTemplate#tryExecute}: the work's result, or that the lock was held by
 * another holder for the whole wait, so the work did not run.
 * <p>
 * Not an {@link java.util.Optional}: work may return null (or nothing), which an empty {@code Optional} could not
 * tell from "not acquired", and the caller may want to know which lock was busy and how long it waited.
 *
 * @param <T> the work's result
 */
public final class LockAttempt<T extends @Nullable Object> {

	/** The work's result; null when the lock was not acquired (or when the work returned null). */
	private final @Nullable T result;

	/** Why the work did not run; null exactly when the lock was acquired. */
	private final @Nullable LockAcquisitionException notAcquired;

	private LockAttempt(@Nullable T result, @Nullable LockAcquisitionException notAcquired) {
		this.result = result;
		this.notAcquired = notAcquired;
	}

	/** The lock was acquired and the work ran, returning this result (also for a stub of the template in a test). */
	public static <T extends @Nullable Object> LockAttempt<T> acquired(T result) {
		return new LockAttempt<>(result, null);
	}

	/** The lock was busy for the whole wait, so the work did not run (also for a stub of the template in a test). */
	public static <T extends @Nullable Object> LockAttempt<T> notAcquired(LockAcquisitionException reason) {
		return new LockAttempt<>(null, reason);
	}

	/** Whether the lock was acquired, so the work ran. */
	public boolean isAcquired() {
		return this.notAcquired == null;
	}

	/**
	 * The work's result.
	 * @throws LockAcquisitionException if the lock was not acquired, as {@link DistributedLockTemplate#execute}
	 * would have thrown
	 */
	public T result() {
		LockAcquisitionException busy = this.notAcquired;
		if (busy != null) {
			throw new LockAcquisitionException(busy.getLockName(), busy.getLockKey(), busy.getWaited(), null);
		}
		return workResult();
	}

	/** The work's result, or {@code other} if the lock was not acquired. */
	public T orElse(T other) {
		return isAcquired() ? workResult() : other;
	}

	/** The work's result, or what {@code other} supplies if the lock was not acquired. */
	public T orElseGet(Supplier<? extends T> other) {
		return isAcquired() ? workResult() : other.get();
	}

	/** The name of the lock that was busy, or null when it was acquired. */
	public @Nullable String lockName() {
		return (this.notAcquired != null) ? this.notAcquired.getLockName() : null;
	}

	/** The key of the lock that was busy, or null when it was acquired. */
	public @Nullable String lockKey() {
		return (this.notAcquired != null) ? this.notAcquired.getLockKey() : null;
	}

	/** How long the call waited for the busy lock, or null when it was acquired. */
	public @Nullable Duration waited() {
		return (this.notAcquired != null) ? this.notAcquired.getWaited() : null;
	}

	/**
	 * The result of work that ran: null there only when the work returned null, which its type {@code T} then
	 * admits. Only called once the lock is known acquired.
	 */
	// NullAway cannot tell that the field holds the work's own T whenever the lock was acquired.
	@SuppressWarnings("NullAway")
	private T workResult() {
		return this.result;
	}

	@Override
	public String toString() {
		return isAcquired() ? "LockAttempt[acquired, result=" + this.result + "]"
				: "LockAttempt[not acquired, lock '" + lockName() + "' key '" + lockKey() + "']";
	}

}
