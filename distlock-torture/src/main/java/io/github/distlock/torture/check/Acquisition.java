package io.github.distlock.torture.check;

/**
 * One acquisition from a worker's history, with how its call ended ({@code ending} null when the history has no
 * end for it: the worker was killed, or the call never returned).
 *
 * @param worker the worker
 * @param thread the worker thread
 * @param call the call's number within the worker
 * @param key the lock key
 * @param token the fencing token
 * @param startNanos when the call started (before it waited for the lock)
 * @param acquiredNanos when the section learnt it holds the lock
 * @param leftNanos when the section finished, before the release, as recorded then; 0 when no such record was made
 * (the worker was killed inside the section)
 * @param ending how the call ended, or null
 */
public record Acquisition(String worker, String thread, long call, String key, long token, long startNanos,
		long acquiredNanos, long leftNanos, Ending ending) {

	/** The writer name this acquisition's fence writes carry. */
	public String writer() {
		return this.worker + "/" + this.call;
	}

	/**
	 * How a call that held the lock ended.
	 *
	 * @param outcome {@code released}, {@code lost} or {@code failed}
	 * @param endNanos when the section finished, before the release
	 * @param returnedNanos when the call returned to the worker, after the release
	 * @param reason the loss reason, or null
	 */
	public record Ending(String outcome, long endNanos, long returnedNanos, String reason) {

		boolean lost() {
			return "lost".equals(this.outcome);
		}

	}

	@Override
	public String toString() {
		return this.worker + "/" + this.call + " (" + this.thread + ") key " + this.key + " token " + this.token;
	}

}
