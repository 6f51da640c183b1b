package io.github.distlock.execution;

import java.time.Duration;

import io.github.distlock.LockAcquisitionException;

/**
 * How long a call waited, measured where the call began rather than where the failing acquisition did. An engine
 * measures its own wait, which is not the caller's: a key set waits for each of its keys in turn, each with what the
 * others left of the call's wait, and an engine that fails after the grant (a replica acknowledgement that never
 * came) has no wait of its own to report. The caller, its fallback and its failure handler are promised the whole
 * call's. Static, on a start read from {@link System#nanoTime()}: every locked call measures, so nothing is
 * allocated unless the call fails.
 */
public final class CallWait {

	private CallWait() {
	}

	/** How long a call that began at {@code startNanos} has waited so far. */
	public static Duration since(long startNanos) {
		return Duration.ofNanos(System.nanoTime() - startNanos);
	}

	/**
	 * The failure of a call that began at {@code startNanos}, reporting the whole call's wait: the same exception when
	 * it already does (to the millisecond, the resolution of its message), else a copy (lock, key and cause the same,
	 * the stack trace of the original).
	 */
	public static LockAcquisitionException report(LockAcquisitionException failure, long startNanos) {
		Duration waited = since(startNanos);
		if (failure.getWaited().toMillis() == waited.toMillis()) {
			return failure;
		}
		LockAcquisitionException whole = new LockAcquisitionException(failure.getLockName(), failure.getLockKey(),
				waited, failure.getCause());
		whole.setStackTrace(failure.getStackTrace());
		return whole;
	}

}
