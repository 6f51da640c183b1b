package io.github.distlock.benchmarks.scenarios;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.github.distlock.benchmarks.BenchmarkContext;
import io.github.distlock.benchmarks.measure.TimedLoop;
import io.github.distlock.benchmarks.systems.LockClient;
import io.github.distlock.benchmarks.systems.LockSystem;

/**
 * Lock + unlock on one thread, each pair on a key never used before (as locking per order or per user does): the
 * cost of the common case, as throughput and as the latency of each pair.
 */
public final class UncontendedScenario implements Scenario {

	public static final String NAME = "uncontended";

	public static final String PAIRS_PER_SECOND = "pairs/s";

	public static final String MEAN = "mean µs";

	public static final String P50 = "p50 µs";

	public static final String P99 = "p99 µs";

	@Override
	public String name() {
		return NAME;
	}

	@Override
	public String description() {
		return "One thread, lock + unlock (empty critical section) on distinct keys.";
	}

	@Override
	public List<String> metrics() {
		return List.of(PAIRS_PER_SECOND, MEAN, P50, P99);
	}

	@Override
	public List<String> ratioMetrics() {
		return List.of(MEAN, P50);
	}

	@Override
	public void run(BenchmarkContext context) {
		InterleavedRounds.run(context, NAME, context.settings().roundTime(),
				(system, time) -> measure(context, system, time));
	}

	private Map<String, Double> measure(BenchmarkContext context, LockSystem system, Duration time) {
		LockClient client = system.client(0);
		TimedLoop.Result pairs = TimedLoop.run(time, context.settings().maxOpsPerLoop(),
				() -> context.freshKey("u"), (key) -> LockCalls.lockFree(client, key));
		Map<String, Double> metrics = new LinkedHashMap<>();
		metrics.put(PAIRS_PER_SECOND, pairs.perSecond());
		metrics.put(MEAN, pairs.meanMicros());
		metrics.put(P50, pairs.samples().percentileMicros(50));
		metrics.put(P99, pairs.samples().percentileMicros(99));
		return metrics;
	}

}
