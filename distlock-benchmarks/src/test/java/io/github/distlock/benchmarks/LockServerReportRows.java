package io.github.distlock.benchmarks;

import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The rows of a lock-server benchmark's table (the ZooKeeper and etcd benchmarks share its columns), and what every
 * row of a smoke run must show: positive rates and counts, and no lock lost, overlapped or timed out.
 */
final class LockServerReportRows {

	private LockServerReportRows() {
	}

	/** The systems' rows, in the report's order, without the header. */
	static List<String> of(String report) {
		return Arrays.stream(report.split("\n"))
			.filter((line) -> line.startsWith("| ") && !line.startsWith("| system"))
			.toList();
	}

	/** Asserts that a row measured its system and saw nothing go wrong. */
	static void assertMeasuredCleanly(String row) {
		assertThat(cell(row, 2)).as("uncontended pairs/s in %s", row).isPositive();
		assertThat(cell(row, 5)).as("requests per pair in %s", row).isPositive();
		assertThat(cell(row, 6)).as("writes per pair in %s", row).isPositive();
		assertThat(cell(row, 7)).as("hot-key acquisitions/s in %s", row).isPositive();
		assertThat(cell(row, 10)).as("hand-over p99 in %s", row).isPositive();
		assertThat(cell(row, 11)).as("requests per hot-key acquisition in %s", row).isPositive();
		String[] cells = row.split("\\|");
		assertThat(cells[12].strip()).as("lost locks in %s", row).isEqualTo("0");
		assertThat(cells[13].strip()).as("overlaps in %s", row).isEqualTo("0");
		assertThat(cells[14].strip()).as("timeouts in %s", row).isEqualTo("0");
	}

	/** Writes per lock+unlock pair: the sixth column. */
	static double writesPerPair(String row) {
		return cell(row, 6);
	}

	private static double cell(String row, int column) {
		return Double.parseDouble(row.split("\\|")[column].strip());
	}

}
