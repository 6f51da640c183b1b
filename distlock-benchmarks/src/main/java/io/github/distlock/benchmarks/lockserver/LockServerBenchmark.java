package io.github.distlock.benchmarks.lockserver;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The course of a lock-server benchmark (ZooKeeper, etcd): its command line, and the rounds in which every system
 * runs {@link UncontendedPairs} and then {@link HotKeyContention} on one server, the systems interleaved round by
 * round so that a disturbance of the machine falls on all of them alike.
 */
public final class LockServerBenchmark {

	private LockServerBenchmark() {
	}

	/**
	 * {@code [--smoke] [--out FILE]}: runs the benchmark for {@link RunLength#FULL} or, with {@code --smoke},
	 * {@link RunLength#SMOKE}, prints its report, and writes it to FILE too when given.
	 */
	public static void main(String[] args, Benchmark benchmark) throws Exception {
		List<String> arguments = List.of(args);
		int out = arguments.indexOf("--out");
		String report = benchmark.report(arguments.contains("--smoke") ? RunLength.SMOKE : RunLength.FULL);
		System.out.println(report);
		if (out >= 0) {
			Files.writeString(Path.of(args[out + 1]), report);
		}
	}

	/** Measures every system, in the order given, in every round, on the one server. */
	public static <C> LockServerReport run(LockServer<C> server, Map<String, Function<C, SystemLock>> systems,
			RunLength length) throws Exception {
		LockServerReport report = new LockServerReport(length);
		for (int round = 0; round < length.rounds(); round++) {
			for (Map.Entry<String, Function<C, SystemLock>> system : systems.entrySet()) {
				report.add(system.getKey(),
						UncontendedPairs.measure(server, system.getValue(), "u" + round, length.window()));
				report.add(system.getKey(),
						HotKeyContention.measure(server, system.getValue(), "h" + round, length.window()));
			}
		}
		return report;
	}

	/** One benchmark: starts its server, runs its systems for the length, and answers the report in Markdown. */
	@FunctionalInterface
	public interface Benchmark {

		String report(RunLength length) throws Exception;

	}

}
