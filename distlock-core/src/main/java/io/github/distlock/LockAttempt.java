package io.github.distlock;

import java.time.Duration;
import java.util.function.Supplier;

/**
 * The outcome of {@link DistributedLockTemplate#tryExecute}: the work's result, or that the lock was held by
 * another holder for the whole wait, so the work did not run.
 * <p>
 * Not an {@link java.util.Optional}: work may return null (or nothing), which an empty {@code Optional} could not
 * tell from "not acquired", and the caller may want to know which lock was busy and how long it waited.
 *
 * @param <T> the work's result
 */
public final class LockAttempt<T> {

	private final boolean acquired;

	private final T result;

	private final LockAcquisitionException notAcquired;

	private LockAttempt(boolean acquired, T result, LockAcquisitionException notAcquired) {
		this.acquired = acquired;
		this.result = result;
		this.notAcquired = notAcquired;
	}

	static <T> LockAttempt<T> acquired(T result) {
		return new LockAttempt<>(true, result, null);
	}

	static <T> LockAttempt<T> notAcquired(LockAcquisitionException reason) {
		return new LockAttempt<>(false, null, reason);
	}

	/** Whether the lock was acquired, so the work ran. */
	public boolean isAcquired() {
		return this.acquired;
	}

	/**
	 * The work's result.
	 * @throws LockAcquisitionException if the lock was not acquired, as {@link DistributedLockTemplate#execute}
	 * would have thrown
	 */
	public T result() {
		if (!this.acquired) {
			throw new LockAcquisitionException(lockName(), lockKey(), waited(), null);
		}
		return this.result;
	}

	/** The work's result, or {@code other} if the lock was not acquired. */
	public T orElse(T other) {
		return this.acquired ? this.result : other;
	}

	/** The work's result, or what {@code other} supplies if the lock was not acquired. */
	public T orElseGet(Supplier<? extends T> other) {
		return this.acquired ? this.result : other.get();
	}

	/** The name of the lock that was busy, or null when it was acquired. */
	public String lockName() {
		return (this.notAcquired != null) ? this.notAcquired.getLockName() : null;
	}

	/** The key of the lock that was busy, or null when it was acquired. */
	public String lockKey() {
		return (this.notAcquired != null) ? this.notAcquired.getLockKey() : null;
	}

	/** How long the call waited for the busy lock, or null when it was acquired. */
	public Duration waited() {
		return (this.notAcquired != null) ? this.notAcquired.getWaited() : null;
	}

	@Override
	public String toString() {
		return this.acquired ? "LockAttempt[acquired, result=" + this.result + "]"
				: "LockAttempt[not acquired, lock '" + lockName() + "' key '" + lockKey() + "']";
	}

}
