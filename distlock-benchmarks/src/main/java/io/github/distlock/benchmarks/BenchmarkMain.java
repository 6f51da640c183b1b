package io.github.distlock.benchmarks;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

import io.github.distlock.benchmarks.clients.ClientFloorBenchmark;
import io.github.distlock.benchmarks.etcd.EtcdBenchmark;
import io.github.distlock.benchmarks.jdbc.JdbcBenchmark;
import io.github.distlock.benchmarks.keyset.KeySetBenchmark;
import io.github.distlock.benchmarks.processes.ContendedWorker;
import io.github.distlock.benchmarks.report.Report;
import io.github.distlock.benchmarks.report.Results;
import io.github.distlock.benchmarks.scenarios.Scenario;
import io.github.distlock.benchmarks.shared.SharedLockBenchmark;
import io.github.distlock.benchmarks.zookeeper.ZooKeeperBenchmark;

/**
 * Runs the benchmarks and prints the tables.
 *
 * <pre>
 * java -jar distlock-benchmarks/target/distlock-benchmarks.jar [--smoke] [--out FILE] [--scenarios a,b] [--systems a,b]
 * java -jar distlock-benchmarks/target/distlock-benchmarks.jar --scale [--out FILE]   (the scale figures)
 * java -jar distlock-benchmarks/target/distlock-benchmarks.jar --jdbc [--smoke] [--out FILE]   (the database engines)
 * java -jar distlock-benchmarks/target/distlock-benchmarks.jar --keyset [--smoke] [--out FILE] (two keys at once)
 * java -jar distlock-benchmarks/target/distlock-benchmarks.jar --shared [--smoke] [--out FILE] (read/write, permits)
 * java -jar distlock-benchmarks/target/distlock-benchmarks.jar --zookeeper [--smoke] [--out FILE] (the ZooKeeper locks)
 * java -jar distlock-benchmarks/target/distlock-benchmarks.jar --etcd [--smoke] [--out FILE]   (the etcd locks)
 * java -jar distlock-benchmarks/target/distlock-benchmarks.jar --client-floor [--smoke] [--out FILE] (the clients alone)
 * </pre>
 *
 * Without {@code --out} the Markdown results go to {@code distlock-benchmarks/target/benchmark-results.md} when run
 * from the project root, else to {@code benchmark-results.md} in the working directory.
 */
public final class BenchmarkMain {

	private BenchmarkMain() {
	}

	/** The scale figures: held locks (renewal, memory, heap) and keys locked once each (heap flat). */
	private static final List<String> SCALE_SCENARIOS = List.of("renewal", "footprint");

	/**
	 * The annotated path is left out of the scale run: it holds its locks as nested calls, and 100,000 of them would
	 * measure the thread's stack, not the library; its engine is the one measured.
	 */
	private static final List<String> SCALE_SYSTEMS = List.of("distlock-engine", "redisson-rlock",
			"si-registry-spin");

	/** First argument of a worker process of the two-JVM scenario ({@link ContendedWorker}). */
	public static final String WORKER = "--worker";

	public static void main(String[] args) throws Exception {
		if (args.length > 0 && args[0].equals("--jdbc")) {
			JdbcBenchmark.main(Arrays.copyOfRange(args, 1, args.length));
			return;
		}
		if (args.length > 0 && args[0].equals("--keyset")) {
			KeySetBenchmark.main(Arrays.copyOfRange(args, 1, args.length));
			return;
		}
		if (args.length > 0 && args[0].equals("--shared")) {
			SharedLockBenchmark.main(Arrays.copyOfRange(args, 1, args.length));
			return;
		}
		if (args.length > 0 && args[0].equals("--zookeeper")) {
			ZooKeeperBenchmark.main(Arrays.copyOfRange(args, 1, args.length));
			return;
		}
		if (args.length > 0 && args[0].equals("--etcd")) {
			EtcdBenchmark.main(Arrays.copyOfRange(args, 1, args.length));
			return;
		}
		if (args.length > 0 && args[0].equals("--client-floor")) {
			ClientFloorBenchmark.main(Arrays.copyOfRange(args, 1, args.length));
			return;
		}
		if (args.length > 0 && args[0].equals(WORKER)) {
			ContendedWorker.main(Arrays.copyOfRange(args, 1, args.length));
			return;
		}
		BenchmarkSettings settings = BenchmarkSettings.full();
		Path out = defaultOutput();
		List<String> scenarioNames = null;
		List<String> systems = BenchmarkRunner.systemNames();
		for (int i = 0; i < args.length; i++) {
			switch (args[i]) {
				case "--smoke" -> settings = BenchmarkSettings.smoke();
				case "--scale" -> {
					settings = BenchmarkSettings.scale();
					scenarioNames = (scenarioNames != null) ? scenarioNames : SCALE_SCENARIOS;
					systems = SCALE_SYSTEMS;
				}
				case "--out" -> out = Path.of(args[++i]);
				case "--scenarios" -> scenarioNames = List.of(args[++i].split(","));
				case "--systems" -> systems = List.of(args[++i].split(","));
				default -> {
					System.err.println("Usage: java -jar distlock-benchmarks.jar [--smoke | --scale] [--out FILE] "
							+ "[--scenarios structure,uncontended,parallel,many-keys,contended,two-jvms,try-lock,"
							+ "renewal,footprint] [--systems " + String.join(",", BenchmarkRunner.systemNames())
							+ "]");
					System.exit(2);
				}
			}
		}
		List<String> chosen = scenarioNames;
		List<Scenario> scenarios = BenchmarkRunner.scenarios()
			.stream()
			.filter((scenario) -> chosen == null || chosen.contains(scenario.name()))
			.toList();
		Results results = BenchmarkRunner.run(settings, scenarios, systems);
		boolean complete = scenarios.size() == BenchmarkRunner.scenarios().size()
				&& systems.containsAll(BenchmarkRunner.systemNames());
		Report report = new Report(results, scenarios, systems, complete);
		System.out.println(report.plain());
		Files.writeString(out, report.markdown(), StandardCharsets.UTF_8);
		System.out.println("Results written to " + out.toAbsolutePath());
		// Client libraries may leave non-daemon threads behind after shutdown; the run is over either way.
		System.exit(results.notes().stream().anyMatch((note) -> note.startsWith("FAILED")) ? 1 : 0);
	}

	private static Path defaultOutput() {
		Path moduleTarget = Path.of("distlock-benchmarks", "target");
		if (Files.isDirectory(moduleTarget)) {
			return moduleTarget.resolve("benchmark-results.md");
		}
		return Path.of("benchmark-results.md");
	}

}
