package io.github.distlock.benchmarks;

import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.github.distlock.benchmarks.keyset.KeySetBenchmark;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The key-set benchmark's short mode on a real redis-server: both systems measured, every number a number, and
 * distlock's two keys cost two round trips to lock and two to unlock. (The figures come from the documented full run.)
 */
class KeySetBenchmarkSmokeTests {

	@Test
	void bothSystemsAreMeasuredOnTheSameServer() throws Exception {
		String report = KeySetBenchmark.smokeReport();
		List<String> rows = Arrays.stream(report.split("\n"))
			.filter((line) -> line.startsWith("| ") && !line.startsWith("| system"))
			.toList();
		assertThat(rows).hasSize(2);
		assertThat(rows.get(0)).startsWith("| distlock @DistributedLock(key = list) | ");
		assertThat(rows.get(1)).startsWith("| Redisson RedissonMultiLock | ");
		for (String row : rows) {
			String[] cells = row.split("\\|");
			assertThat(Double.parseDouble(cells[2].strip())).as("uncontended pairs/s in %s", row).isPositive();
			// Redisson's multi-lock may complete no transfer in a short window: it backs off when a key is busy.
			assertThat(Double.parseDouble(cells[5].strip())).as("transfers/s in %s", row).isNotNegative();
		}
		assertThat(Double.parseDouble(rows.get(0).split("\\|")[5].strip())).as("distlock's transfers/s")
			.isPositive();
		// Both free keys taken in one script call, then one release each.
		assertThat(Double.parseDouble(rows.get(0).split("\\|")[3].strip())).as("distlock's round trips per pair")
			.isEqualTo(3.0);
	}

}
