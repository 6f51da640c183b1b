package io.github.distlock.benchmarks.scenarios;

import java.util.List;

import io.github.distlock.benchmarks.BenchmarkContext;

/**
 * One thing measured of every system.
 */
public interface Scenario {

	/** Short name, used as the results key. */
	String name();

	/** One line saying what is measured and how. */
	String description();

	/** The metrics every system gets in this scenario; a run missing one of them is incomplete. */
	List<String> metrics();

	/**
	 * Metrics that only some systems give, because they are counts a client library keeps of itself; the others
	 * show n/a. A run is complete without them.
	 */
	default List<String> optionalMetrics() {
		return List.of();
	}

	/** Metrics also shown as a ratio to Redisson's value. */
	List<String> ratioMetrics();

	void run(BenchmarkContext context);

}
