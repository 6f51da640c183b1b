package io.github.distlock.benchmarks.zookeeper;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;

import org.apache.curator.framework.CuratorFramework;

import io.github.distlock.benchmarks.lockserver.EngineSystemLock;
import io.github.distlock.benchmarks.lockserver.HotKeyContention;
import io.github.distlock.benchmarks.lockserver.LockServerBenchmark;
import io.github.distlock.benchmarks.lockserver.RunLength;
import io.github.distlock.benchmarks.lockserver.SystemLock;
import io.github.distlock.benchmarks.lockserver.UncontendedPairs;
import io.github.distlock.zookeeper.ZooKeeperLockEngine;

/**
 * The ZooKeeper lock benchmark: distlock's ZooKeeper engine, Apache Curator's {@code InterProcessMutex} and Spring
 * Integration's {@code ZookeeperLockRegistry}, side by side in one run on one ZooKeeper server that the benchmark
 * starts in its own JVM, the systems interleaved round by round. Per system: lock+unlock pairs per second on one
 * thread (uncontended, {@link UncontendedPairs}), with the requests and writes each pair costs the server; and two
 * instances of four threads on one hot key ({@link HotKeyContention}). Every instance is a client with a session of
 * its own.
 */
public final class ZooKeeperBenchmark {

	private ZooKeeperBenchmark() {
	}

	/** {@code [--smoke] [--out FILE]}: a full run takes about a minute and a half, a smoke run a few seconds. */
	public static void main(String[] args) throws Exception {
		LockServerBenchmark.main(args, ZooKeeperBenchmark::report);
	}

	/** The short mode's report, as {@code --smoke} prints it. */
	public static String smokeReport() throws Exception {
		return report(RunLength.SMOKE);
	}

	/** Runs every system for the length and answers the report, in Markdown. */
	static String report(RunLength length) throws Exception {
		Map<String, Function<CuratorFramework, SystemLock>> systems = new LinkedHashMap<>();
		systems.put("distlock ZooKeeper engine", (client) -> new EngineSystemLock(
				(lost) -> new ZooKeeperLockEngine(client, ZooKeeperLockEngine.DEFAULT_ROOT, lost)));
		systems.put("Curator InterProcessMutex", CuratorMutexLock::new);
		systems.put("Spring Integration ZookeeperLockRegistry", RegistryZooKeeperLock::new);
		try (ZooKeeperUnderTest zookeeper = ZooKeeperUnderTest.start()) {
			return LockServerBenchmark.run(zookeeper, systems, length)
				.markdown("ZooKeeper locks on one ZooKeeper " + ZooKeeperUnderTest.version()
						+ " server in the benchmark's JVM (Curator's TestingServer, fsync off)");
		}
	}

}
