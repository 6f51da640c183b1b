package io.github.distlock.benchmarks.scenarios;

import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.github.distlock.benchmarks.BenchmarkContext;
import io.github.distlock.benchmarks.measure.Samples;
import io.github.distlock.benchmarks.processes.WorkerProcess;
import io.github.distlock.benchmarks.systems.LockSystem;

/**
 * One hot key wanted by two application instances in two JVMs of their own (each a {@code ContendedWorker} with one
 * client and half the hot-key threads): what the in-JVM hot-key scenario measures, without the two instances sharing
 * a JIT, a heap or a scheduler queue. Each instance logs when each of its acquisitions entered and left the lock; the
 * two logs, on the machine's one monotonic clock, merge into the lock's history.
 */
public final class TwoJvmScenario implements Scenario {

	public static final String NAME = "two-jvms";

	public static final String ACQUISITIONS_PER_SECOND = "acq/s";

	public static final String MIN_SHARE = "min share %";

	public static final String CROSS_JVM = "cross-JVM %";

	public static final String HAND_OVER_P50 = "hand-over p50 µs";

	public static final String HAND_OVER_P99 = "hand-over p99 µs";

	public static final String VIOLATIONS = "exclusion violations";

	public static final String TIMEOUTS = "timeouts";

	private static final int JVMS = 2;

	@Override
	public String name() {
		return NAME;
	}

	@Override
	public String description() {
		return "Two JVMs, one client each, half the hot-key threads each, on one key, empty critical section. "
				+ "Hand-over = from the holder's last instruction before unlock to the next holder's first inside, "
				+ "across processes on the machine's monotonic clock.";
	}

	@Override
	public List<String> metrics() {
		return List.of(ACQUISITIONS_PER_SECOND, MIN_SHARE, CROSS_JVM, HAND_OVER_P50, HAND_OVER_P99, VIOLATIONS,
				TIMEOUTS);
	}

	@Override
	public List<String> ratioMetrics() {
		return List.of(ACQUISITIONS_PER_SECOND, HAND_OVER_P99);
	}

	@Override
	public void run(BenchmarkContext context) {
		Map<LockSystem, List<WorkerProcess>> workers = new LinkedHashMap<>();
		try {
			InterleavedRounds.run(context, NAME, context.settings().contendedRoundTime(),
					(system, time) -> measure(context, workers.computeIfAbsent(system, (s) -> start(context, s)),
							time));
		}
		finally {
			workers.values().forEach((pair) -> pair.forEach(WorkerProcess::close));
		}
	}

	/** Both JVMs start side by side: most of this scenario's time in a short run is JVMs starting. */
	private List<WorkerProcess> start(BenchmarkContext context, LockSystem system) {
		List<WorkerProcess> pair = new ArrayList<>();
		try {
			for (int i = 0; i < JVMS; i++) {
				pair.add(WorkerProcess.launch(system.name(), context.redis().host(), context.redis().port(),
						context.settings().locks(), context.settings().workerJvmOptions()));
			}
			for (WorkerProcess worker : pair) {
				worker.awaitReady(Duration.ofMinutes(2));
			}
			return pair;
		}
		catch (RuntimeException ex) {
			pair.forEach(WorkerProcess::close);
			throw ex;
		}
	}

	private Map<String, Double> measure(BenchmarkContext context, List<WorkerProcess> pair, Duration time) {
		int threads = Math.max(1, context.settings().contendedClients() * context.settings().threadsPerClient() / JVMS);
		// Both instances get the command well before the clock starts, so neither has a head start.
		long start = System.nanoTime() + Duration.ofMillis(300).toNanos();
		long window = time.toNanos();
		List<Path> files = new ArrayList<>();
		try {
			for (int i = 0; i < JVMS; i++) {
				Path file = Files.createTempFile("distlock-two-jvms-", ".bin");
				files.add(file);
				pair.get(i).run(start, window, threads, file);
			}
			Duration limit = time.plus(context.settings().locks().waitTime()).plusSeconds(60);
			long timeouts = 0;
			for (WorkerProcess worker : pair) {
				timeouts += worker.awaitDone(limit);
			}
			List<Acquisition> history = new ArrayList<>();
			for (int i = 0; i < JVMS; i++) {
				read(files.get(i), i, history);
			}
			history.sort(Comparator.comparingLong(Acquisition::entered));
			Map<String, Double> metrics = analyse(history, start, window);
			metrics.put(TIMEOUTS, (double) timeouts);
			return metrics;
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		finally {
			for (Path file : files) {
				try {
					Files.deleteIfExists(file);
				}
				catch (IOException ex) {
					// a temporary file left behind
				}
			}
		}
	}

	private static void read(Path file, int jvm, List<Acquisition> history) throws IOException {
		try (InputStream in = Files.newInputStream(file);
				DataInputStream data = new DataInputStream(new BufferedInputStream(in))) {
			int count = data.readInt();
			for (int i = 0; i < count; i++) {
				history.add(new Acquisition(jvm, data.readLong(), data.readLong()));
			}
		}
	}

	/**
	 * Counts acquisitions that entered within the window (threads still waiting when it closed drain afterwards);
	 * checks every consecutive pair, drained ones included, for overlap.
	 */
	static Map<String, Double> analyse(List<Acquisition> history, long start, long window) {
		long[] perJvm = new long[JVMS];
		Samples handOvers = new Samples();
		long counted = 0;
		long crossJvm = 0;
		long violations = 0;
		Acquisition previous = null;
		for (Acquisition current : history) {
			if (previous != null && current.entered() - previous.exited() < 0) {
				violations++;
			}
			if (current.entered() - (start + window) <= 0) {
				counted++;
				perJvm[current.jvm()]++;
				if (previous != null) {
					handOvers.add(current.entered() - previous.exited());
					if (current.jvm() != previous.jvm()) {
						crossJvm++;
					}
				}
			}
			previous = current;
		}
		Map<String, Double> metrics = new LinkedHashMap<>();
		metrics.put(ACQUISITIONS_PER_SECOND, counted / (window / 1e9));
		long fewest = Math.min(perJvm[0], perJvm[1]);
		metrics.put(MIN_SHARE, (counted == 0) ? Double.NaN : 100.0 * fewest / counted);
		metrics.put(CROSS_JVM, (handOvers.size() == 0) ? Double.NaN : 100.0 * crossJvm / handOvers.size());
		metrics.put(HAND_OVER_P50, handOvers.percentileMicros(50));
		metrics.put(HAND_OVER_P99, handOvers.percentileMicros(99));
		metrics.put(VIOLATIONS, (double) violations);
		return metrics;
	}

	/** One acquisition as an instance logged it: entry and exit on the machine's monotonic clock. */
	record Acquisition(int jvm, long entered, long exited) {
	}

}
