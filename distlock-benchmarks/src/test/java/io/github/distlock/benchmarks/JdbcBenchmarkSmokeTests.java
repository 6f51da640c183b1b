package io.github.distlock.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.github.distlock.benchmarks.jdbc.JdbcBenchmark;

/**
 * The database benchmark's short mode on the machine's PostgreSQL: every system measured, every number a number.
 * (The figures themselves come from the documented full run.)
 */
class JdbcBenchmarkSmokeTests {

	@Test
	void everySystemIsMeasuredOnTheSameDatabase() throws Exception {
		String report = JdbcBenchmark.smokeReport();
		List<String> rows = Arrays.stream(report.split("\n")).filter((line) -> line.startsWith("| ") && !line.startsWith("| system"))
			.toList();
		assertThat(rows).hasSize(3);
		assertThat(rows.get(0)).startsWith("| distlock JDBC engine | ");
		assertThat(rows.get(1)).startsWith("| Spring Integration JdbcLockRegistry | ");
		assertThat(rows.get(2)).startsWith("| ShedLock JdbcTemplateLockProvider | ").contains("cannot wait");
		for (String row : rows.subList(0, 2)) {
			String[] cells = row.split("\\|");
			assertThat(Double.parseDouble(cells[2].strip())).as("uncontended pairs/s in %s", row).isPositive();
			assertThat(Double.parseDouble(cells[7].strip())).as("hot-key acquisitions/s in %s", row).isPositive();
		}
		String[] distlock = rows.get(0).split("\\|");
		assertThat(Double.parseDouble(distlock[5].strip())).as("statements per lock+unlock").isEqualTo(2.0);
		assertThat(Double.parseDouble(distlock[6].strip())).as("commits: every statement commits by itself")
			.isEqualTo(0.0);
	}

}
