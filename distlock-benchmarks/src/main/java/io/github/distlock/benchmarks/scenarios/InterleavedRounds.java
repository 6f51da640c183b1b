package io.github.distlock.benchmarks.scenarios;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.github.distlock.benchmarks.BenchmarkContext;
import io.github.distlock.benchmarks.measure.Series;
import io.github.distlock.benchmarks.report.Numbers;
import io.github.distlock.benchmarks.systems.LockSystem;

/**
 * The timing discipline of the throughput scenarios: each system warms up, then every round runs every system once,
 * in an order rotated from round to round, so that a slow phase of the machine, or the JIT, or garbage left by the
 * previous system, falls on all systems alike. Each metric is reported as the median of its rounds.
 */
final class InterleavedRounds {

	private InterleavedRounds() {
	}

	/** One timed run of one system, returning its metrics. */
	@FunctionalInterface
	interface Measurement {

		Map<String, Double> measure(LockSystem system, Duration time);

	}

	static void run(BenchmarkContext context, String scenario, Duration roundTime, Measurement measurement) {
		List<LockSystem> systems = new ArrayList<>();
		for (LockSystem system : context.systems()) {
			if (context.attemptRound(scenario, system,
					() -> measurement.measure(system, context.settings().warmup()))) {
				systems.add(system);
			}
		}
		Map<LockSystem, Map<String, Series>> series = new LinkedHashMap<>();
		int rounds = context.settings().rounds();
		for (int round = 0; round < rounds; round++) {
			for (int i = 0; i < systems.size(); i++) {
				LockSystem system = systems.get((i + round) % systems.size());
				int number = round + 1;
				// A round records its metrics only once it has them all, so a failed one can run again.
				context.attemptRound(scenario, system, () -> {
					Map<String, Double> metrics = measurement.measure(system, roundTime);
					metrics.forEach((metric, value) -> series.computeIfAbsent(system, (s) -> new LinkedHashMap<>())
						.computeIfAbsent(metric, (m) -> new Series())
						.add(value));
					Map.Entry<String, Double> first = metrics.entrySet().iterator().next();
					context.progress(String.format("  [%s] round %d/%d %-20s %s %s", scenario, number, rounds,
							system.name(), Numbers.format(first.getValue()), first.getKey()));
				});
			}
		}
		series.forEach((system, metrics) -> metrics.forEach((metric, values) -> {
			// A system that failed in some round has fewer values; it is reported only when complete.
			if (values.size() == rounds) {
				context.results().put(scenario, system.name(), metric, values);
			}
		}));
	}

}
