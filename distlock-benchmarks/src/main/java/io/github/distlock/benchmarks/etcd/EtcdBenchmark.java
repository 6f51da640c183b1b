package io.github.distlock.benchmarks.etcd;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;

import io.etcd.jetcd.Client;
import io.github.distlock.benchmarks.lockserver.EngineSystemLock;
import io.github.distlock.benchmarks.lockserver.HotKeyContention;
import io.github.distlock.benchmarks.lockserver.LockServerBenchmark;
import io.github.distlock.benchmarks.lockserver.RunLength;
import io.github.distlock.benchmarks.lockserver.SystemLock;
import io.github.distlock.benchmarks.lockserver.UncontendedPairs;
import io.github.distlock.etcd.EtcdLockEngine;

/**
 * The etcd lock benchmark: distlock's etcd engine and etcd's own lock service (through jetcd's lock client), side by
 * side in one run on one etcd server that the benchmark starts as a process of the machine's etcd binary, the systems
 * interleaved round by round. Per system: lock+unlock pairs per second on one thread (uncontended,
 * {@link UncontendedPairs}), with the requests and writes each pair costs the server; and two instances of four
 * threads on one hot key ({@link HotKeyContention}). Every instance is a jetcd client of its own.
 */
public final class EtcdBenchmark {

	private EtcdBenchmark() {
	}

	/** {@code [--smoke] [--out FILE]}: a full run takes about a minute, a smoke run a few seconds. */
	public static void main(String[] args) throws Exception {
		LockServerBenchmark.main(args, EtcdBenchmark::report);
	}

	/** The short mode's report, as {@code --smoke} prints it. */
	public static String smokeReport() throws Exception {
		return report(RunLength.SMOKE);
	}

	/** Runs every system for the length and answers the report, in Markdown. */
	static String report(RunLength length) throws Exception {
		Map<String, Function<Client, SystemLock>> systems = new LinkedHashMap<>();
		systems.put("distlock etcd engine", (client) -> new EngineSystemLock((lost) -> new EtcdLockEngine(client,
				EtcdLockEngine.DEFAULT_ROOT, EtcdLockEngine.DEFAULT_LEASE_TTL, lost)));
		systems.put("jetcd Lock (etcd lock service)", JetcdLock::new);
		try (EtcdUnderTest etcd = EtcdUnderTest.start()) {
			return LockServerBenchmark.run(etcd, systems, length).markdown("etcd locks on " + etcd.description());
		}
	}

}
