package io.github.distlock.benchmarks.scenarios;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicReference;

import io.github.distlock.benchmarks.BenchmarkContext;
import io.github.distlock.benchmarks.redis.RedisInfo;
import io.github.distlock.benchmarks.systems.LockClient;
import io.github.distlock.benchmarks.systems.LockSystem;

/**
 * Many locks held at once and kept alive by each system's renewal: what renewal costs Redis per tick, whether that
 * cost grows with the number of locks, and how much Redis memory one held lock takes.
 * <p>
 * Measured at N and at N / 10 locks: round trips per renewal interval that stay the same are O(1) per tick; ones
 * that grow tenfold are O(N).
 */
public final class RenewalScenario implements Scenario {

	public static final String NAME = "renewal";

	public static final String MEMORY = "memory B/lock";

	public static final String ROUND_TRIPS = "round trips/interval";

	public static final String ROUND_TRIPS_SMALL = "round trips/interval at N/10";

	public static final String GROWTH = "growth N vs N/10";

	public static final String RENEWALS = "PEXPIRE/lock/interval";

	public static final String COMMANDS = "commands/interval";

	public static final String CPU = "Redis CPU ms/interval";

	public static final String LOST = "lost locks";

	public static final String KEYS_AFTER_RELEASE = "keys left after release";

	@Override
	public String name() {
		return NAME;
	}

	@Override
	public String description() {
		return "N locks held at once by one client for a window; renewal interval = lease / 3. Round trips = script "
				+ "calls; commands include those inside scripts; memory = (used_memory - mem_clients_normal) delta / N.";
	}

	@Override
	public List<String> metrics() {
		return List.of(MEMORY, ROUND_TRIPS, ROUND_TRIPS_SMALL, GROWTH, RENEWALS, COMMANDS, CPU, LOST,
				KEYS_AFTER_RELEASE);
	}

	@Override
	public List<String> ratioMetrics() {
		return List.of(MEMORY, ROUND_TRIPS);
	}

	@Override
	public void run(BenchmarkContext context) {
		int large = context.settings().heldLocks();
		int small = Math.max(1, large / 10);
		for (LockSystem system : context.systems()) {
			context.attempt(NAME, system, () -> {
				Window atSmall = hold(context, system, small);
				Window atLarge = hold(context, system, large);
				String name = system.name();
				context.results().put(NAME, name, MEMORY, (double) atLarge.acquired.memoryBytes() / large);
				context.results().put(NAME, name, ROUND_TRIPS, atLarge.perInterval(atLarge.window.scriptCalls()));
				context.results().put(NAME, name, ROUND_TRIPS_SMALL, atSmall.perInterval(atSmall.window.scriptCalls()));
				context.results().put(NAME, name, GROWTH, (double) atLarge.window.scriptCalls()
						/ Math.max(1, atSmall.window.scriptCalls()));
				context.results().put(NAME, name, RENEWALS,
						atLarge.perInterval(atLarge.window.calls("pexpire")) / large);
				context.results().put(NAME, name, COMMANDS, atLarge.perInterval(atLarge.window.totalCalls()));
				context.results().put(NAME, name, CPU, atLarge.perInterval(atLarge.window.cpuSeconds() * 1000));
				context.results().put(NAME, name, LOST, (double) (atSmall.lost + atLarge.lost));
				context.results().put(NAME, name, KEYS_AFTER_RELEASE, (double) atLarge.keysLeft);
				context.progress(String.format(Locale.ROOT, "  [%s] %-20s %d locks: %.1f round trips/interval, "
						+ "%.1f at %d locks; %.0f B/lock", NAME, name, large,
						atLarge.perInterval(atLarge.window.scriptCalls()),
						atSmall.perInterval(atSmall.window.scriptCalls()), small,
						(double) atLarge.acquired.memoryBytes() / large));
			});
		}
	}

	private Window hold(BenchmarkContext context, LockSystem system, int count) {
		List<String> keys = new ArrayList<>(count);
		for (int i = 0; i < count; i++) {
			keys.add(context.freshKey("r"));
		}
		Duration window = context.settings().renewalWindow();
		LockClient holder = system.holdingClient();
		// The holder's connections are opened before the baseline, so that their buffers in Redis are not taken
		// for memory of the locks.
		if (!holder.runLocked(context.freshKey("r-warm"), () -> {
		})) {
			throw new IllegalStateException("A free lock was not acquired");
		}
		RedisInfo baseline = context.redis().settledInfo(Duration.ofSeconds(10));
		AtomicReference<RedisInfo> held = new AtomicReference<>();
		AtomicReference<RedisInfo> after = new AtomicReference<>();
		long lost = holder.holdAll(keys, () -> {
			held.set(context.redis().info());
			sleep(window);
			after.set(context.redis().info());
		});
		// Releases that finish asynchronously (Redisson deletes its unlock latch after replying) get a moment.
		sleep(Duration.ofMillis(200));
		long keysLeft = context.redis().countKeys(system.keyPattern());
		if (keysLeft > 0) {
			// The holder still renews locks it failed to release; that load must not fall on the next measurement.
			system.closeHoldingClient();
		}
		double intervals = (double) window.toNanos() / context.settings().renewalInterval().toNanos();
		return new Window(held.get().since(baseline), after.get().since(held.get()), intervals, lost, keysLeft);
	}

	private static void sleep(Duration time) {
		try {
			Thread.sleep(time.toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	/**
	 * @param acquired from before the first acquisition to all locks held
	 * @param window while all locks were held and only renewal ran
	 * @param intervals renewal intervals in the window
	 * @param lost locks lost by release time
	 * @param keysLeft keys of the system in Redis after every lock was released
	 */
	private record Window(RedisInfo.Delta acquired, RedisInfo.Delta window, double intervals, long lost,
			long keysLeft) {

		double perInterval(double count) {
			return count / this.intervals;
		}

	}

}
