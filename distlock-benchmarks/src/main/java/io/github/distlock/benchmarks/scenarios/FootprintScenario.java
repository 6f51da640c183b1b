package io.github.distlock.benchmarks.scenarios;

import java.time.Duration;
import java.util.List;
import java.util.Locale;

import io.github.distlock.benchmarks.BenchmarkContext;
import io.github.distlock.benchmarks.measure.HeapProbe;
import io.github.distlock.benchmarks.measure.Workers;
import io.github.distlock.benchmarks.systems.LockClient;
import io.github.distlock.benchmarks.systems.LockSystem;

/**
 * What many lock/unlock cycles on distinct keys leave behind: keys in Redis (every system's, from the whole run) and
 * live objects in the JVM heap. Either growing with the number of keys ever locked would be a leak in a long-lived
 * application.
 */
public final class FootprintScenario implements Scenario {

	public static final String NAME = "footprint";

	public static final String KEYS_LEFT = "keys left";

	public static final String KEYS_LEFT_WITHOUT_TTL = "keys left without TTL";

	public static final String HEAP_PER_CYCLE = "heap B/cycle";

	public static final String HEAP_GROWTH = "heap growth KiB";

	@Override
	public String name() {
		return NAME;
	}

	@Override
	public String description() {
		return "Lock + unlock cycles on distinct keys, then: keys of the system in Redis (after every scenario), and "
				+ "live heap growth across the cycles (after full GCs; a first fifth of cycles runs before the "
				+ "baseline).";
	}

	@Override
	public List<String> metrics() {
		return List.of(KEYS_LEFT, KEYS_LEFT_WITHOUT_TTL, HEAP_PER_CYCLE, HEAP_GROWTH);
	}

	@Override
	public List<String> ratioMetrics() {
		return List.of();
	}

	/** Runs the cycles on the configured threads, each its share of them, all on distinct keys. */
	private static void cycle(BenchmarkContext context, LockClient client, int cycles) {
		int threads = context.settings().footprintThreads();
		Workers.run(NAME, threads, Duration.ofHours(1), (index, startNanos) -> {
			int share = cycles / threads + ((index < cycles % threads) ? 1 : 0);
			for (int i = 0; i < share; i++) {
				LockCalls.lockFree(client, context.freshKey("f"));
			}
		});
	}

	@Override
	public void run(BenchmarkContext context) {
		int cycles = context.settings().cycles();
		for (LockSystem system : context.systems()) {
			context.attempt(NAME, system, () -> {
				LockClient client = system.client(0);
				// A first batch lets one-time allocations (caches filled on first use) happen before the baseline,
				// so that only growth with the number of keys remains.
				cycle(context, client, cycles / 5);
				long before = HeapProbe.liveBytes();
				cycle(context, client, cycles);
				long after = HeapProbe.liveBytes();
				long keys = context.redis().countKeys(system.keyPattern());
				long persistent = context.redis().countKeysWithoutTtl(system.keyPattern());
				String name = system.name();
				context.results().put(NAME, name, KEYS_LEFT, keys);
				context.results().put(NAME, name, KEYS_LEFT_WITHOUT_TTL, persistent);
				context.results().put(NAME, name, HEAP_PER_CYCLE, (double) (after - before) / cycles);
				context.results().put(NAME, name, HEAP_GROWTH, (after - before) / 1024.0);
				if (keys > 0) {
					context.results().detail(NAME, name, "left, e.g.",
							context.redis().sampleKeys(system.keyPattern(), 3));
				}
				context.progress(String.format(Locale.ROOT, "  [%s] %-20s %d cycles: %d keys left, heap %+.0f KiB",
						NAME, name, cycles, keys, (after - before) / 1024.0));
			});
		}
	}

}
