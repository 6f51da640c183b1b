package io.github.distlock.benchmarks;

import java.util.List;

import org.junit.jupiter.api.Test;

import io.github.distlock.benchmarks.zookeeper.ZooKeeperBenchmark;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The ZooKeeper benchmark's short mode on its own in-JVM server: every system measured, every rate a positive
 * number, and no lock lost, overlapped or timed out. (The figures themselves come from the documented full run.)
 */
class ZooKeeperBenchmarkSmokeTests {

	@Test
	void everySystemIsMeasuredOnTheSameServer() throws Exception {
		List<String> rows = LockServerReportRows.of(ZooKeeperBenchmark.smokeReport());
		assertThat(rows).hasSize(3);
		assertThat(rows.get(0)).startsWith("| distlock ZooKeeper engine | ");
		assertThat(rows.get(1)).startsWith("| Curator InterProcessMutex | ");
		assertThat(rows.get(2)).startsWith("| Spring Integration ZookeeperLockRegistry | ");
		rows.forEach(LockServerReportRows::assertMeasuredCleanly);
		// Every system creates a node to lock and deletes it to unlock, and writes nothing else.
		for (String row : rows) {
			assertThat(LockServerReportRows.writesPerPair(row)).as("writes per pair in %s", row).isEqualTo(2.0);
		}
	}

}
