package io.github.distlock.execution;

import java.time.Duration;

import io.github.distlock.LockAcquisitionException;

/**
 * How long a call waited, measured where the call began rather than where the failing acquisition did. An engine
 * measures its own wait, which is not the caller's: a key set waits for each of its keys in turn, each with what the
 * others left of the call's wait, and an engine that fails after the grant (a replica acknowledgement that never
 * came) has no wait of its own to report. The caller, its fallback and its failure handler are promised the whole
 * call's.
 */
public final class CallWait {

	private final long startNanos = System.nanoTime();

	/** Starts measuring a call's wait. */
	public static CallWait start() {
		return new CallWait();
	}

	/** How long the call has waited so far. */
	public Duration waited() {
		return Duration.ofNanos(System.nanoTime() - this.startNanos);
	}

	/**
	 * The failure, reporting the whole call's wait: the same exception when it already does (to the millisecond, the
	 * resolution of its message), else a copy (lock, key and cause the same, the stack trace of the original).
	 */
	public LockAcquisitionException report(LockAcquisitionException failure) {
		Duration waited = waited();
		if (failure.getWaited().toMillis() == waited.toMillis()) {
			return failure;
		}
		LockAcquisitionException whole = new LockAcquisitionException(failure.getLockName(), failure.getLockKey(),
				waited, failure.getCause());
		whole.setStackTrace(failure.getStackTrace());
		return whole;
	}

}
