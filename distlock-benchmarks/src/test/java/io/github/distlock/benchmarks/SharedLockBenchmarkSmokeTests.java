package io.github.distlock.benchmarks;

import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.github.distlock.benchmarks.shared.SharedLockBenchmark;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The read/write and permits benchmark's short mode on a real redis-server: both systems measured in every row, every
 * number a positive number, and no moment in distlock's history with a writer beside another holder or more permit
 * holders than permits. (The figures come from the documented full run.)
 */
class SharedLockBenchmarkSmokeTests {

	private static final List<String> SCENARIOS = List.of("a. read lock+unlock pairs/s",
			"b. write lock+unlock pairs/s", "c. read-heavy mix acquisitions/s", "c. writer acquisitions per",
			"c. longest writer wait", "c. longest reader wait", "c. exclusion violations",
			"d. client commands per read pair", "d. script commands per read pair", "d. client commands per write pair",
			"d. script commands per write pair", "e. permit acquire+release pairs/s", "f. permit acquisitions/s",
			"f. longest permit wait", "f. more than 4 holders at once", "g. client commands per permit pair",
			"g. script commands per permit pair");

	@Test
	void bothSystemsAreMeasuredOnTheSameServer() throws Exception {
		String report = SharedLockBenchmark.smokeReport();
		List<String> lines = Arrays.asList(report.split("\n"));
		assertThat(lines).anyMatch((line) -> line.startsWith("| scenario | distlock RedisLockEngine | Redisson | "));
		List<String> rows = lines.stream()
			.filter((line) -> line.startsWith("| ") && !line.startsWith("| scenario") && !line.startsWith("| ---"))
			.toList();
		assertThat(rows).hasSize(SCENARIOS.size());
		for (int i = 0; i < rows.size(); i++) {
			String row = rows.get(i);
			assertThat(row).as("row %d", i).startsWith("| " + SCENARIOS.get(i));
			String[] cells = row.split("\\|");
			double distlock = number(cells[2]);
			double redisson = number(cells[3]);
			if (isViolationCount(row)) {
				assertThat(distlock).as("distlock's %s", row).isZero();
				assertThat(redisson).as("Redisson's %s", row).isNotNegative();
			}
			else {
				assertThat(distlock).as("distlock in %s", row).isPositive();
				assertThat(redisson).as("Redisson in %s", row).isPositive();
			}
		}
		assertThat(report).contains("- distlock RedisLockEngine: waits that ran out (10 s): 0; "
				+ "releases that found the lock gone: 0; locks reported lost: 0");
	}

	private static boolean isViolationCount(String row) {
		return row.startsWith("| c. exclusion violations") || row.startsWith("| f. more than 4 holders at once");
	}

	private static double number(String cell) {
		return Double.parseDouble(cell.strip().replace(",", ""));
	}

}
