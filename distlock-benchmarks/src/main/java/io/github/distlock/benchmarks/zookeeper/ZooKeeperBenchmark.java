package io.github.distlock.benchmarks.zookeeper;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import org.apache.curator.framework.CuratorFramework;

/**
 * The ZooKeeper lock benchmark: distlock's ZooKeeper engine, Apache Curator's {@code InterProcessMutex} and Spring
 * Integration's {@code ZookeeperLockRegistry}, side by side in one run on one ZooKeeper server that the benchmark
 * starts in its own JVM, the systems interleaved round by round. Per system: lock+unlock pairs per second on one
 * thread (uncontended, {@link UncontendedPairs}), with the requests and writes each pair costs the server; and two
 * instances of four threads on one hot key ({@link HotKeyContention}). Every instance is a client with a session of
 * its own.
 */
public final class ZooKeeperBenchmark {

	private final Duration window;

	private final int rounds;

	private ZooKeeperBenchmark(Duration window, int rounds) {
		this.window = window;
		this.rounds = rounds;
	}

	/** {@code [--smoke] [--out FILE]}: a full run takes about a minute and a half, a smoke run a few seconds. */
	public static void main(String[] args) throws Exception {
		boolean smoke = List.of(args).contains("--smoke");
		int out = List.of(args).indexOf("--out");
		String report = smoke ? smokeReport() : new ZooKeeperBenchmark(Duration.ofSeconds(3), 3).run();
		System.out.println(report);
		if (out >= 0) {
			Files.writeString(Path.of(args[out + 1]), report);
		}
	}

	/** The short mode's report, as {@code --smoke} prints it. */
	public static String smokeReport() throws Exception {
		return new ZooKeeperBenchmark(Duration.ofMillis(500), 1).run();
	}

	/** Runs every system and answers the report, in Markdown. */
	public String run() throws Exception {
		Map<String, Function<CuratorFramework, ZooKeeperLock>> systems = new LinkedHashMap<>();
		systems.put("distlock ZooKeeper engine", DistlockZooKeeperLock::new);
		systems.put("Curator InterProcessMutex", CuratorMutexLock::new);
		systems.put("Spring Integration ZookeeperLockRegistry", RegistryZooKeeperLock::new);
		ZooKeeperReport report = new ZooKeeperReport(this.rounds, this.window);
		try (ZooKeeperUnderTest zookeeper = ZooKeeperUnderTest.start()) {
			for (int round = 0; round < this.rounds; round++) {
				for (Map.Entry<String, Function<CuratorFramework, ZooKeeperLock>> system : systems.entrySet()) {
					report.add(system.getKey(),
							UncontendedPairs.measure(zookeeper, system.getValue(), "u" + round, this.window));
					report.add(system.getKey(),
							HotKeyContention.measure(zookeeper, system.getValue(), "h" + round, this.window));
				}
			}
		}
		return report.markdown();
	}

}
