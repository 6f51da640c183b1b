package io.github.distlock.benchmarks;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

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
 * java -jar distlock-benchmarks/target/distlock-benchmarks.jar [--smoke] [--out FILE] [--scenarios a,b]
 * java -jar distlock-benchmarks/target/distlock-benchmarks.jar --jdbc [--smoke] [--out FILE]   (the database engines)
 * java -jar distlock-benchmarks/target/distlock-benchmarks.jar --keyset [--smoke] [--out FILE] (two keys at once)
 * java -jar distlock-benchmarks/target/distlock-benchmarks.jar --shared [--smoke] [--out FILE] (read/write, permits)
 * java -jar distlock-benchmarks/target/distlock-benchmarks.jar --zookeeper [--smoke] [--out FILE] (the ZooKeeper locks)
 * java -jar distlock-benchmarks/target/distlock-benchmarks.jar --etcd [--smoke] [--out FILE]   (the etcd locks)
 * </pre>
 *
 * Without {@code --out} the Markdown results go to {@code distlock-benchmarks/target/benchmark-results.md} when run
 * from the project root, else to {@code benchmark-results.md} in the working directory.
 */
public final class BenchmarkMain {

	private BenchmarkMain() {
	}

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
		if (args.length > 0 && args[0].equals(WORKER)) {
			ContendedWorker.main(Arrays.copyOfRange(args, 1, args.length));
			return;
		}
		BenchmarkSettings settings = BenchmarkSettings.full();
		Path out = defaultOutput();
		List<Scenario> scenarios = BenchmarkRunner.scenarios();
		for (int i = 0; i < args.length; i++) {
			switch (args[i]) {
				case "--smoke" -> settings = BenchmarkSettings.smoke();
				case "--out" -> out = Path.of(args[++i]);
				case "--scenarios" -> {
					List<String> names = List.of(args[++i].split(","));
					scenarios = scenarios.stream().filter((scenario) -> names.contains(scenario.name())).toList();
				}
				default -> {
					System.err.println("Usage: java -jar distlock-benchmarks.jar [--smoke] [--out FILE] "
							+ "[--scenarios structure,uncontended,parallel,contended,two-jvms,try-lock,renewal,footprint]");
					System.exit(2);
				}
			}
		}
		Results results = BenchmarkRunner.run(settings, scenarios);
		Report report = new Report(results, scenarios, BenchmarkRunner.systemNames());
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
