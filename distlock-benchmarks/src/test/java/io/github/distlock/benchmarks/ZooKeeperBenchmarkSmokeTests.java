package io.github.distlock.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.github.distlock.benchmarks.zookeeper.ZooKeeperBenchmark;

/**
 * The ZooKeeper benchmark's short mode on its own in-JVM server: every system measured, every rate a positive
 * number, and no lock lost, overlapped or timed out. (The figures themselves come from the documented full run.)
 */
class ZooKeeperBenchmarkSmokeTests {

	@Test
	void everySystemIsMeasuredOnTheSameServer() throws Exception {
		String report = ZooKeeperBenchmark.smokeReport();
		List<String> rows = Arrays.stream(report.split("\n"))
			.filter((line) -> line.startsWith("| ") && !line.startsWith("| system"))
			.toList();
		assertThat(rows).hasSize(3);
		assertThat(rows.get(0)).startsWith("| distlock ZooKeeper engine | ");
		assertThat(rows.get(1)).startsWith("| Curator InterProcessMutex | ");
		assertThat(rows.get(2)).startsWith("| Spring Integration ZookeeperLockRegistry | ");
		for (String row : rows) {
			String[] cells = row.split("\\|");
			assertThat(Double.parseDouble(cells[2].strip())).as("uncontended pairs/s in %s", row).isPositive();
			assertThat(Double.parseDouble(cells[5].strip())).as("requests per pair in %s", row).isPositive();
			assertThat(Double.parseDouble(cells[6].strip())).as("writes per pair in %s", row).isPositive();
			assertThat(Double.parseDouble(cells[7].strip())).as("hot-key acquisitions/s in %s", row).isPositive();
			assertThat(Double.parseDouble(cells[10].strip())).as("hand-over p99 in %s", row).isPositive();
			assertThat(Double.parseDouble(cells[11].strip())).as("requests per hot-key acquisition in %s", row)
				.isPositive();
			assertThat(cells[12].strip()).as("lost locks in %s", row).isEqualTo("0");
			assertThat(cells[13].strip()).as("overlaps in %s", row).isEqualTo("0");
			assertThat(cells[14].strip()).as("timeouts in %s", row).isEqualTo("0");
		}
		// Every system creates a node to lock and deletes it to unlock, and writes nothing else.
		for (String row : rows) {
			assertThat(Double.parseDouble(row.split("\\|")[6].strip())).as("writes per pair in %s", row)
				.isEqualTo(2.0);
		}
	}

}
