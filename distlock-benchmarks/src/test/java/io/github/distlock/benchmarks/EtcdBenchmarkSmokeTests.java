package io.github.distlock.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.github.distlock.benchmarks.etcd.EtcdBenchmark;

/**
 * The etcd benchmark's short mode on a real etcd server it starts itself: both systems measured, every rate a
 * positive number, distlock's two writes per lock+unlock, and no lock lost, overlapped or timed out. (The figures
 * themselves come from the documented full run.)
 */
class EtcdBenchmarkSmokeTests {

	@Test
	void bothSystemsAreMeasuredOnTheSameServer() throws Exception {
		String report = EtcdBenchmark.smokeReport();
		List<String> rows = Arrays.stream(report.split("\n"))
			.filter((line) -> line.startsWith("| ") && !line.startsWith("| system"))
			.toList();
		assertThat(rows).hasSize(2);
		assertThat(rows.get(0)).startsWith("| distlock etcd engine | ");
		assertThat(rows.get(1)).startsWith("| jetcd Lock (etcd lock service) | ");
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
		// The engine's promise: a join that creates the key, a release that deletes it, nothing else.
		assertThat(Double.parseDouble(rows.get(0).split("\\|")[6].strip())).as("distlock's writes per pair")
			.isEqualTo(2.0);
	}

}
