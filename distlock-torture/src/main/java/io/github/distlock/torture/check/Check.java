package io.github.distlock.torture.check;

/**
 * One rule (or one family of figures) applied to a run's records.
 */
interface Check {

	void check(RunRecords records, CheckReport report);

	/** Milliseconds, for people, from nanoseconds. */
	static String millis(long nanos) {
		return String.format("%.1f ms", nanos / 1_000_000.0);
	}

	/** A time as seconds since the load started. */
	static String at(RunRecords records, long nanos) {
		return String.format("+%.3f s", (nanos - records.parameters().loadStartNanos()) / 1_000_000_000.0);
	}

}
