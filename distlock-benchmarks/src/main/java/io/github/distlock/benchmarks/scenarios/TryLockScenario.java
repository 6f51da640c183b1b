package io.github.distlock.benchmarks.scenarios;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.github.distlock.benchmarks.BenchmarkContext;
import io.github.distlock.benchmarks.measure.TimedLoop;
import io.github.distlock.benchmarks.systems.LockClient;
import io.github.distlock.benchmarks.systems.LockSystem;

/**
 * The failure path: trying, without waiting, a lock another client holds. Applications that skip work when
 * someone else is doing it (scheduled jobs on many instances) live on this path.
 */
public final class TryLockScenario implements Scenario {

	public static final String NAME = "try-lock";

	public static final String OPS_PER_SECOND = "failed tries/s";

	public static final String P50 = "p50 µs";

	public static final String P99 = "p99 µs";

	@Override
	public String name() {
		return NAME;
	}

	@Override
	public String description() {
		return "One thread tries (no wait) a key held by another client of the same system.";
	}

	@Override
	public List<String> metrics() {
		return List.of(OPS_PER_SECOND, P50, P99);
	}

	@Override
	public List<String> ratioMetrics() {
		return List.of(OPS_PER_SECOND);
	}

	@Override
	public void run(BenchmarkContext context) {
		Map<LockSystem, String> heldKeys = new LinkedHashMap<>();
		List<BackgroundHold> holds = new ArrayList<>();
		// The whole scenario, rounds of every system, runs within this bound; the holders let go after it anyway.
		Duration holdLimit = context.settings().warmup()
			.plus(context.settings().roundTime().multipliedBy(context.settings().rounds()))
			.multipliedBy(context.systems().size())
			.plusSeconds(120);
		try {
			for (LockSystem system : context.systems()) {
				String key = context.freshKey("t-held");
				context.attempt(NAME, system, () -> {
					holds.add(new BackgroundHold(system.holdingClient(), key, holdLimit));
					heldKeys.put(system, key);
				});
			}
			InterleavedRounds.run(context, NAME, context.settings().roundTime(), (system, time) -> {
				String key = heldKeys.get(system);
				if (key == null) {
					throw new IllegalStateException("No client holds the key to try");
				}
				return measure(context, system, key, time);
			});
		}
		finally {
			holds.forEach(BackgroundHold::close);
		}
	}

	private Map<String, Double> measure(BenchmarkContext context, LockSystem system, String key, Duration time) {
		LockClient client = system.client(0);
		TimedLoop.Result tries = TimedLoop.run(time, context.settings().maxOpsPerLoop(), () -> key,
				(held) -> LockCalls.tryHeld(client, held));
		Map<String, Double> metrics = new LinkedHashMap<>();
		metrics.put(OPS_PER_SECOND, tries.perSecond());
		metrics.put(P50, tries.samples().percentileMicros(50));
		metrics.put(P99, tries.samples().percentileMicros(99));
		return metrics;
	}

}
