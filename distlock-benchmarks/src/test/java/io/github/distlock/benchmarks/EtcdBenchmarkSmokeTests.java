package io.github.distlock.benchmarks;

import java.util.List;

import org.junit.jupiter.api.Test;

import io.github.distlock.benchmarks.etcd.EtcdBenchmark;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The etcd benchmark's short mode on a real etcd server it starts itself: both systems measured, every rate a
 * positive number, distlock's two writes per lock+unlock, and no lock lost, overlapped or timed out. (The figures
 * themselves come from the documented full run.)
 */
class EtcdBenchmarkSmokeTests {

	@Test
	void bothSystemsAreMeasuredOnTheSameServer() throws Exception {
		List<String> rows = LockServerReportRows.of(EtcdBenchmark.smokeReport());
		assertThat(rows).hasSize(2);
		assertThat(rows.get(0)).startsWith("| distlock etcd engine | ");
		assertThat(rows.get(1)).startsWith("| jetcd Lock (etcd lock service) | ");
		rows.forEach(LockServerReportRows::assertMeasuredCleanly);
		// The engine's promise: a join that creates the key, a release that deletes it, nothing else.
		assertThat(LockServerReportRows.writesPerPair(rows.get(0))).as("distlock's writes per pair").isEqualTo(2.0);
	}

}
