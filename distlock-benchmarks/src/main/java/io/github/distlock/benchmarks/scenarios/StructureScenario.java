package io.github.distlock.benchmarks.scenarios;

import java.time.Duration;
import java.util.List;

import io.github.distlock.benchmarks.BenchmarkContext;
import io.github.distlock.benchmarks.redis.CommandMonitor;
import io.github.distlock.benchmarks.redis.CommandTrace;
import io.github.distlock.benchmarks.redis.RedisInfo;
import io.github.distlock.benchmarks.systems.LockClient;
import io.github.distlock.benchmarks.systems.LockSystem;

/**
 * Counts that do not move with noise: what one uncontended lock + unlock, and one failed try-lock, make Redis do.
 * Round trips are the commands clients sent, per MONITOR; commands include those scripts called, and are checked
 * against {@code INFO commandstats}.
 */
public final class StructureScenario implements Scenario {

	public static final String NAME = "structure";

	public static final String ROUND_TRIPS = "round trips/pair";

	public static final String COMMANDS = "commands/pair";

	public static final String COMMANDS_BY_STATS = "commands/pair (commandstats)";

	public static final String FAILED_TRY_ROUND_TRIPS = "round trips/failed try";

	public static final String FAILED_TRY_COMMANDS = "commands/failed try";

	@Override
	public String name() {
		return NAME;
	}

	@Override
	public String description() {
		return "Redis commands per uncontended lock+unlock and per failed try-lock (MONITOR trace, cross-checked "
				+ "with INFO commandstats deltas); commands include those called inside scripts.";
	}

	@Override
	public List<String> metrics() {
		return List.of(ROUND_TRIPS, COMMANDS, COMMANDS_BY_STATS, FAILED_TRY_ROUND_TRIPS, FAILED_TRY_COMMANDS);
	}

	@Override
	public List<String> ratioMetrics() {
		return List.of(ROUND_TRIPS, COMMANDS);
	}

	@Override
	public void run(BenchmarkContext context) {
		// MONITOR makes Redis copy every command to the monitoring connection: it must be closed before anything
		// is timed.
		try (CommandMonitor monitor = new CommandMonitor(context.redis())) {
			for (LockSystem system : context.systems()) {
				context.attempt(NAME, system, () -> measure(context, monitor, system));
			}
		}
	}

	private void measure(BenchmarkContext context, CommandMonitor monitor, LockSystem system) {
		int ops = context.settings().structuralOps();
		LockClient client = system.client(0);
		// Connections, script caches and lazily started listeners settle before anything is counted.
		for (int i = 0; i < 20; i++) {
			LockCalls.lockFree(client, context.freshKey("s"));
		}
		RedisInfo before = context.redis().info();
		CommandTrace pairs = monitor.record(() -> {
			for (int i = 0; i < ops; i++) {
				LockCalls.lockFree(client, context.freshKey("s"));
			}
		});
		RedisInfo.Delta stats = context.redis().info().since(before);
		String scenario = NAME;
		context.results().put(scenario, system.name(), ROUND_TRIPS, (double) pairs.clientCount() / ops);
		context.results().put(scenario, system.name(), COMMANDS,
				(double) (pairs.clientCount() + pairs.scriptCount()) / ops);
		context.results().put(scenario, system.name(), COMMANDS_BY_STATS, (double) stats.totalCalls() / ops);
		context.results().detail(scenario, system.name(), "pair", pairs.describe(ops));

		String heldKey = context.freshKey("s-held");
		CommandTrace tries;
		BackgroundHold hold = new BackgroundHold(system.holdingClient(), heldKey, Duration.ofMinutes(1));
		try {
			// The trace must hold only the tries, not the holder's renewal of the key. Renewal starts no sooner than
			// a sixth of the lease after acquisition (a registry with a renewal scheduler renews once at once), and
			// the tries take a few milliseconds: so they start a moment after the hold, and well before renewal.
			Pauses.sleep(Duration.ofMillis(50));
			for (int i = 0; i < 20; i++) {
				LockCalls.tryHeld(client, heldKey);
			}
			tries = monitor.record(() -> {
				for (int i = 0; i < ops; i++) {
					LockCalls.tryHeld(client, heldKey);
				}
			});
		}
		finally {
			hold.close();
		}
		context.results().put(scenario, system.name(), FAILED_TRY_ROUND_TRIPS, (double) tries.clientCount() / ops);
		context.results().put(scenario, system.name(), FAILED_TRY_COMMANDS,
				(double) (tries.clientCount() + tries.scriptCount()) / ops);
		context.results().detail(scenario, system.name(), "failed try", tries.describe(ops));
	}

}
