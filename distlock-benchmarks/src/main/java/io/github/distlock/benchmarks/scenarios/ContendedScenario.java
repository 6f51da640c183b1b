package io.github.distlock.benchmarks.scenarios;

import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;
import java.util.stream.Collectors;

import io.github.distlock.benchmarks.BenchmarkContext;
import io.github.distlock.benchmarks.measure.HandOverLog;
import io.github.distlock.benchmarks.measure.Workers;
import io.github.distlock.benchmarks.redis.RedisInfo;
import io.github.distlock.benchmarks.systems.LockClient;
import io.github.distlock.benchmarks.systems.LockSystem;

/**
 * One hot key, wanted by several independent clients (as several application instances would be), each with
 * several threads: throughput, how fairly the clients share the lock, whether hand-overs cross clients, how long a
 * hand-over takes, and how much Redis work each acquisition costs.
 */
public final class ContendedScenario implements Scenario {

	public static final String NAME = "contended";

	public static final String ACQUISITIONS_PER_SECOND = "acq/s";

	public static final String MIN_SHARE = "min share %";

	public static final String MAX_SHARE = "max share %";

	public static final String CROSS_CLIENT = "cross-client %";

	public static final String HAND_OVER_P50 = "hand-over p50 µs";

	public static final String HAND_OVER_P99 = "hand-over p99 µs";

	public static final String SCRIPT_CALLS = "script calls/acq";

	public static final String COMMANDS = "commands/acq";

	public static final String VIOLATIONS = "exclusion violations";

	public static final String TIMEOUTS = "timeouts";

	@Override
	public String name() {
		return NAME;
	}

	@Override
	public String description() {
		return "Independent clients × threads on one key, empty critical section. Hand-over = from the holder's "
				+ "last instruction before unlock to the next holder's first inside the lock.";
	}

	@Override
	public List<String> metrics() {
		return List.of(ACQUISITIONS_PER_SECOND, MIN_SHARE, MAX_SHARE, CROSS_CLIENT, HAND_OVER_P50, HAND_OVER_P99,
				SCRIPT_CALLS, COMMANDS, VIOLATIONS, TIMEOUTS);
	}

	@Override
	public List<String> ratioMetrics() {
		return List.of(ACQUISITIONS_PER_SECOND, HAND_OVER_P99);
	}

	@Override
	public void run(BenchmarkContext context) {
		InterleavedRounds.run(context, NAME, context.settings().contendedRoundTime(),
				(system, time) -> measure(context, system, time));
	}

	private Map<String, Double> measure(BenchmarkContext context, LockSystem system, Duration time) {
		int clients = context.settings().contendedClients();
		int threadsPerClient = context.settings().threadsPerClient();
		LockClient[] clientOf = new LockClient[clients];
		for (int i = 0; i < clients; i++) {
			clientOf[i] = system.client(i);
		}
		String hotKey = "hot";
		long limit = context.settings().maxOpsPerLoop();
		HandOverLog log = new HandOverLog(clients, time.toNanos());
		LongAdder timeouts = new LongAdder();
		RedisInfo before = context.redis().info();
		// Threads that wait when the window closes still get the lock once (bounded by the wait time), so the
		// limit leaves room for that drain.
		Duration limitTime = time.plus(context.settings().locks().waitTime()).plusSeconds(30);
		Workers.run(NAME, clients * threadsPerClient, limitTime, (index, startNanos) -> {
			int client = index / threadsPerClient;
			log.open(startNanos);
			long deadline = startNanos + time.toNanos();
			Runnable body = () -> {
				log.entered(client);
				log.exiting(client);
			};
			long done = 0;
			while (System.nanoTime() < deadline && done++ < limit) {
				if (!clientOf[client].runLocked(hotKey, body)) {
					timeouts.increment();
				}
			}
		});
		RedisInfo.Delta stats = context.redis().info().since(before);
		double[] shares = log.sharesPercent();
		context.results().detail(NAME, system.name(), "client shares % by run (warm-up first)",
				Arrays.stream(shares)
					.mapToObj((share) -> String.format(Locale.ROOT, "%.0f", share))
					.collect(Collectors.joining("/")));
		Map<String, Double> metrics = new LinkedHashMap<>();
		metrics.put(ACQUISITIONS_PER_SECOND, log.countedAcquisitions() / (time.toNanos() / 1e9));
		metrics.put(MIN_SHARE, Arrays.stream(shares).min().orElse(Double.NaN));
		metrics.put(MAX_SHARE, Arrays.stream(shares).max().orElse(Double.NaN));
		metrics.put(CROSS_CLIENT, log.crossClientPercent());
		metrics.put(HAND_OVER_P50, log.handOverMicros(50));
		metrics.put(HAND_OVER_P99, log.handOverMicros(99));
		metrics.put(SCRIPT_CALLS, (double) stats.scriptCalls() / log.totalAcquisitions());
		metrics.put(COMMANDS, (double) stats.totalCalls() / log.totalAcquisitions());
		metrics.put(VIOLATIONS, (double) log.violations());
		metrics.put(TIMEOUTS, timeouts.doubleValue());
		return metrics;
	}

}
