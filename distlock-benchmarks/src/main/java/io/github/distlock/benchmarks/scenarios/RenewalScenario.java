package io.github.distlock.benchmarks.scenarios;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import io.github.distlock.benchmarks.BenchmarkContext;
import io.github.distlock.benchmarks.measure.HeapProbe;
import io.github.distlock.benchmarks.redis.RedisInfo;
import io.github.distlock.benchmarks.report.Numbers;
import io.github.distlock.benchmarks.systems.LockClient;
import io.github.distlock.benchmarks.systems.LockSystem;

/**
 * Many locks held at once and kept alive by each system's renewal: what renewal costs Redis per tick, whether that
 * cost grows with the number of locks, and how much Redis memory one held lock takes.
 * <p>
 * Measured at N and at N / 10 locks: counts per renewal interval that stay the same are O(1) per tick; ones that
 * grow tenfold are O(N). Redis sees script calls, not round trips: a client that sends several calls at once and
 * then waits for all of them makes one round trip. So round trips come from the client's own count, where the
 * library keeps one (distlock's engine counts one per watchdog tick); the others have script calls only.
 */
public final class RenewalScenario implements Scenario {

	public static final String NAME = "renewal";

	public static final String MEMORY = "memory B/lock";

	public static final String CLIENT_HEAP = "client heap B/lock";

	public static final String SCRIPT_CALLS = "script calls/interval";

	public static final String SCRIPT_CALLS_SMALL = "script calls/interval at N/10";

	public static final String ROUND_TRIPS = "round trips/interval (client's count)";

	public static final String ROUND_TRIPS_SMALL = "round trips/interval at N/10 (client's count)";

	public static final String ROUND_TRIP_GROWTH = "round-trip growth N vs N/10";

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
		return "N locks held at once by one client for a window that starts once Redis memory has settled after "
				+ "the last acquisition; renewal interval = lease / 3. Script calls = EVAL/EVALSHA in INFO "
				+ "commandstats; round trips = the client's own count of renewal round trips, where it keeps one "
				+ "(n/a: it keeps none); commands include those inside scripts; memory = (used_memory - "
				+ "mem_clients_normal) delta / N, from before the first acquisition to all N held, each read once "
				+ "memory stopped moving; client heap = live heap (after full GCs) with all N held, less before the "
				+ "first acquisition, / N, the holder's list of handles included.";
	}

	@Override
	public List<String> metrics() {
		return List.of(MEMORY, CLIENT_HEAP, SCRIPT_CALLS, SCRIPT_CALLS_SMALL, RENEWALS, COMMANDS, CPU, LOST,
				KEYS_AFTER_RELEASE);
	}

	@Override
	public List<String> optionalMetrics() {
		return List.of(ROUND_TRIPS, ROUND_TRIPS_SMALL, ROUND_TRIP_GROWTH);
	}

	@Override
	public List<String> ratioMetrics() {
		return List.of(MEMORY, SCRIPT_CALLS);
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
				context.results().put(NAME, name, MEMORY, (double) atLarge.memoryBytes / large);
				context.results().put(NAME, name, CLIENT_HEAP, (double) atLarge.heapBytes / large);
				context.results().put(NAME, name, SCRIPT_CALLS, atLarge.perInterval(atLarge.window.scriptCalls()));
				context.results().put(NAME, name, SCRIPT_CALLS_SMALL,
						atSmall.perInterval(atSmall.window.scriptCalls()));
				if (atLarge.roundTrips.isPresent() && atSmall.roundTrips.isPresent()) {
					long largeTrips = atLarge.roundTrips.getAsLong();
					long smallTrips = atSmall.roundTrips.getAsLong();
					context.results().put(NAME, name, ROUND_TRIPS, atLarge.perInterval(largeTrips));
					context.results().put(NAME, name, ROUND_TRIPS_SMALL, atSmall.perInterval(smallTrips));
					context.results().put(NAME, name, ROUND_TRIP_GROWTH, (double) largeTrips / Math.max(1, smallTrips));
					// Several script calls per round trip show that a tick's batches went out together.
					context.results().detail(NAME, name, "script calls per round trip at N",
							Numbers.format((double) atLarge.window.scriptCalls() / Math.max(1, largeTrips)));
				}
				context.results().put(NAME, name, RENEWALS,
						atLarge.perInterval(atLarge.window.calls("pexpire")) / large);
				context.results().put(NAME, name, COMMANDS, atLarge.perInterval(atLarge.window.totalCalls()));
				context.results().put(NAME, name, CPU, atLarge.perInterval(atLarge.window.cpuSeconds() * 1000));
				context.results().put(NAME, name, LOST, (double) (atSmall.lost + atLarge.lost));
				context.results().put(NAME, name, KEYS_AFTER_RELEASE, (double) atLarge.keysLeft);
				context.progress(String.format(Locale.ROOT, "  [%s] %-20s %d locks: %.1f script calls/interval "
						+ "(%s round trips), %.1f at %d locks; %.0f B/lock in Redis, %.0f B/lock of heap", NAME, name,
						large,
						atLarge.perInterval(atLarge.window.scriptCalls()), atLarge.describeRoundTrips(),
						atSmall.perInterval(atSmall.window.scriptCalls()), small,
						(double) atLarge.memoryBytes / large, (double) atLarge.heapBytes / large));
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
		LockCalls.lockFree(holder, context.freshKey("r-warm"));
		RedisInfo baseline = context.redis().settledInfo(Duration.ofSeconds(10));
		long heapBefore = HeapProbe.liveBytes();
		AtomicLong heapHeld = new AtomicLong();
		AtomicReference<RedisInfo> held = new AtomicReference<>();
		AtomicReference<RedisInfo> after = new AtomicReference<>();
		AtomicReference<OptionalLong> tripsHeld = new AtomicReference<>();
		AtomicReference<OptionalLong> tripsAfter = new AtomicReference<>();
		AtomicReference<RedisInfo> settled = new AtomicReference<>();
		long lost = holder.holdAll(keys, () -> {
			// Before the window: the collections it takes must not delay the renewals counted in it.
			heapHeld.set(HeapProbe.liveBytes());
			// Memory is read once it has stopped moving between two renewals: right after the last acquisition
			// Redis may still be rehashing its key tables, and right after a renewal batch the connections'
			// query buffers are large; either would be charged to the locks.
			settled.set(context.redis().settledInfo(Duration.ofSeconds(10)));
			held.set(context.redis().info());
			tripsHeld.set(holder.renewalRoundTrips());
			Pauses.sleep(window);
			after.set(context.redis().info());
			tripsAfter.set(holder.renewalRoundTrips());
		});
		// Releases that finish asynchronously (Redisson deletes its unlock latch after replying) get a moment.
		Pauses.sleep(Duration.ofMillis(200));
		long keysLeft = context.redis().countKeys(system.keyPattern());
		if (keysLeft > 0) {
			// The holder still renews locks it failed to release; that load must not fall on the next measurement.
			system.closeHoldingClient();
		}
		double intervals = (double) window.toNanos() / context.settings().renewalInterval().toNanos();
		OptionalLong roundTrips = (tripsHeld.get().isPresent() && tripsAfter.get().isPresent())
				? OptionalLong.of(tripsAfter.get().getAsLong() - tripsHeld.get().getAsLong()) : OptionalLong.empty();
		return new Window(settled.get().since(baseline).memoryBytes(), heapHeld.get() - heapBefore,
				after.get().since(held.get()), roundTrips, intervals, lost, keysLeft);
	}

	/**
	 * @param memoryBytes Redis memory taken by the N held locks, once settled
	 * @param heapBytes the client's live heap taken by the N held locks
	 * @param window while all locks were held and only renewal ran
	 * @param roundTrips renewal round trips in the window by the client's own count, if it keeps one
	 * @param intervals renewal intervals in the window
	 * @param lost locks lost by release time
	 * @param keysLeft keys of the system in Redis after every lock was released
	 */
	private record Window(long memoryBytes, long heapBytes, RedisInfo.Delta window, OptionalLong roundTrips,
			double intervals, long lost, long keysLeft) {

		double perInterval(double count) {
			return count / this.intervals;
		}

		String describeRoundTrips() {
			return this.roundTrips.isPresent()
					? String.format(Locale.ROOT, "%.1f", perInterval(this.roundTrips.getAsLong())) : "uncounted";
		}

	}

}
