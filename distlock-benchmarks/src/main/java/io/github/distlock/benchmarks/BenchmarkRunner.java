package io.github.distlock.benchmarks;

import java.util.ArrayList;
import java.util.List;

import io.github.distlock.benchmarks.redis.RedisUnderTest;
import io.github.distlock.benchmarks.report.Environment;
import io.github.distlock.benchmarks.report.Results;
import io.github.distlock.benchmarks.scenarios.ContendedScenario;
import io.github.distlock.benchmarks.scenarios.FootprintScenario;
import io.github.distlock.benchmarks.scenarios.ManyKeysScenario;
import io.github.distlock.benchmarks.scenarios.ParallelScenario;
import io.github.distlock.benchmarks.scenarios.RenewalScenario;
import io.github.distlock.benchmarks.scenarios.Scenario;
import io.github.distlock.benchmarks.scenarios.StructureScenario;
import io.github.distlock.benchmarks.scenarios.TryLockScenario;
import io.github.distlock.benchmarks.scenarios.TwoJvmScenario;
import io.github.distlock.benchmarks.scenarios.UncontendedScenario;
import io.github.distlock.benchmarks.systems.LockSystem;
import io.github.distlock.benchmarks.systems.RedissonLockSystem;
import io.github.distlock.benchmarks.systems.SystemCatalog;

/**
 * One run: starts Redis, builds every system, runs every scenario against all of them, and shuts everything down.
 */
public final class BenchmarkRunner {

	private BenchmarkRunner() {
	}

	/**
	 * The scenarios in the order they run. MONITOR-based counts come first, before anything is timed; footprint comes
	 * last, so the keys it counts are those every other scenario left.
	 */
	public static List<Scenario> scenarios() {
		return List.of(new StructureScenario(), new UncontendedScenario(), new ParallelScenario(),
				new ManyKeysScenario(), new ContendedScenario(), new TwoJvmScenario(), new TryLockScenario(), new RenewalScenario(),
				new FootprintScenario());
	}

	/** The systems' names, in table order. */
	public static List<String> systemNames() {
		return List.of("distlock-annotated", "distlock-engine", RedissonLockSystem.NAME, "si-registry-spin",
				"si-registry-pubsub");
	}

	public static Results run(BenchmarkSettings settings) {
		return run(settings, scenarios());
	}

	/** Runs only the given scenarios (for working on one of them); the report then lacks the others. */
	public static Results run(BenchmarkSettings settings, List<Scenario> scenarios) {
		return run(settings, scenarios, systemNames());
	}

	/** Runs the given scenarios on the named systems only. */
	public static Results run(BenchmarkSettings settings, List<Scenario> scenarios, List<String> systemNames) {
		Results results = new Results();
		long started = System.nanoTime();
		try (RedisUnderTest redis = RedisUnderTest.start()) {
			Environment.record(results, redis.version() + " (" + redis.binary() + ")");
			results.environment("profile", describe(settings));
			List<LockSystem> systems = new ArrayList<>();
			for (LockSystem system : SystemCatalog.all(redis.host(), redis.port(), settings.locks())) {
				if (systemNames.contains(system.name())) {
					systems.add(system);
				}
				else {
					system.close();
				}
			}
			BenchmarkContext context = new BenchmarkContext(settings, redis, systems, results);
			try {
				for (Scenario scenario : scenarios) {
					long scenarioStart = System.nanoTime();
					context.progress("== " + scenario.name());
					scenario.run(context);
					context.progress(String.format("   %s took %.1f s", scenario.name(),
							(System.nanoTime() - scenarioStart) / 1e9));
				}
			}
			finally {
				systems.forEach(LockSystem::close);
			}
		}
		results.environment("run time", String.format("%.0f s", (System.nanoTime() - started) / 1e9));
		return results;
	}

	private static String describe(BenchmarkSettings settings) {
		return String.format("%s: lease %d ms (renewal every %d ms), wait %d ms; warm-up %d ms; %d rounds of %d ms "
				+ "(hot key %d ms); %d parallel threads; many keys: %d threads on %,d keys, holds up to %d µs; hot key "
				+ "%d clients × %d threads; %,d held locks (and %,d) for %d ms; %,d footprint cycles on %d "
				+ "thread(s); %d traced operations", settings.profile(),
				settings.locks().lease().toMillis(), settings.renewalInterval().toMillis(),
				settings.locks().waitTime().toMillis(), settings.warmup().toMillis(), settings.rounds(),
				settings.roundTime().toMillis(), settings.contendedRoundTime().toMillis(), settings.parallelThreads(),
				settings.manyKeysThreads(), settings.manyKeys(), settings.maxHold().toNanos() / 1000,
				settings.contendedClients(), settings.threadsPerClient(), settings.heldLocks(),
				settings.heldLocks() / 10, settings.renewalWindow().toMillis(), settings.cycles(),
				settings.footprintThreads(), settings.structuralOps());
	}

}
