package io.github.distlock.benchmarks;

import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.github.distlock.benchmarks.clients.ClientFloorBenchmark;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The client floor's short mode: every client sends the call and is timed. (The figures come from the documented
 * full run.)
 */
class ClientFloorBenchmarkSmokeTests {

	@Test
	void everyClientIsMeasuredOnTheSameRedis() {
		List<String> rows = Arrays.stream(ClientFloorBenchmark.smokeReport().split("\n"))
			.filter((line) -> line.startsWith("| ") && !line.startsWith("| client") && !line.startsWith("| ---"))
			.toList();
		assertThat(rows).extracting((row) -> row.split("\\|")[1].strip())
			.containsExactly("redisson-connection", "redisson-connection-strings", "redisson-rscript", "lettuce-spring-data",
					"lettuce-sync");
		for (String row : rows) {
			assertThat(Double.parseDouble(row.split("\\|")[2].strip())).as("calls/s in %s", row).isPositive();
		}
	}

}
