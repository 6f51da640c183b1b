package io.github.distlock.sample.demo.processes;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The two-process demo as its README command runs it: the packaged sample starts Redis, a database on PostgreSQL
 * and two shop JVMs, drives them over HTTP, freezes one with SIGSTOP past its lease, prints the table and leaves
 * nothing running, also when it is stopped half-way. Runs after {@code package}, which builds the jar. Uses the
 * machine's PostgreSQL on 127.0.0.1:5432 as the demo does; without one, the demo starts its embedded PostgreSQL
 * ({@link PostgresServerTests} checks that one here).
 */
class TwoProcessDemoIT {

	/** Enough to show the race in a few seconds: 16 buyers at once, 48 attempts, 10 items. */
	private static final String[] SHORT = { "--sample.demo.buyers=16", "--sample.demo.attempts=48",
			"--sample.demo.stock=10" };

	@Test
	void oversellsWithoutTheLockNeverWithItAndRefusesTheFrozenHoldersLateWrite(@TempDir Path dir) throws Exception {
		try (DemoProcess demo = DemoProcess.start(dir, SHORT)) {
			assertThat(demo.awaitExit(Duration.ofSeconds(150))).as("exit status; output:%n%s", demo.output()).isZero();

			Map<String, List<Integer>> table = demo.table();
			assertThat(table).as("the printed table:%n%s", demo.output())
				.containsOnlyKeys("without lock", "with @DistributedLock", "holder frozen past its lease");
			// (sold, stock, oversold, stale writes refused). Without the lock every buyer reads the stock, waits 5 ms
			// and writes back its own count: with 16 buyers at once, items sell several times over on every run.
			// That race is not a certainty, but in every run so far it sold all 48 attempts.
			assertThat(table.get("without lock").get(2)).as("oversold without the lock").isPositive();
			assertThat(table.get("with @DistributedLock")).as("sold, stock, oversold, stale")
				.containsExactly(10, 0, 0, 0);
			List<Integer> frozen = table.get("holder frozen past its lease");
			assertThat(frozen.get(0)).as("sold by the shop that took over").isEqualTo(1);
			assertThat(frozen.get(2)).as("oversold").isZero();
			assertThat(frozen.get(3)).as("stale writes refused").isGreaterThanOrEqualTo(1);
			assertThat(demo.output()).contains("SIGSTOP", "SIGCONT shop-1", "409 STALE_TOKEN");
			// A path it prints is one the user can open, or is told it is gone.
			Matcher logs = Pattern.compile("their logs: (\\S+) \\(removed when the demo succeeds")
				.matcher(demo.output());
			assertThat(logs.find()).as("the logs' path and fate in:%n%s", demo.output()).isTrue();
			assertThat(Path.of(logs.group(1))).doesNotExist();
			assertThat(demo.output()).contains("Removed the shops' logs (--sample.demo.processes.keep-logs=true");

			assertNothingLeft(demo);
		}
	}

	@Test
	void stoppedWhileAShopIsFrozenItLeavesNothingRunning(@TempDir Path dir) throws Exception {
		// A long lease keeps the shop frozen until the test has looked; few buyers keep the first scenarios short.
		try (DemoProcess demo = DemoProcess.start(dir, "--sample.demo.buyers=4", "--sample.demo.attempts=8",
				"--sample.demo.processes.lease=20s", "--sample.demo.processes.lock-wait=30s")) {
			demo.awaitOutput("SIGSTOP", Duration.ofSeconds(120));
			assertThat(demo.stopped()).as("the frozen shop").hasSize(1);

			demo.terminate();

			assertThat(demo.awaitExit(Duration.ofSeconds(60))).as("exit status; output:%n%s", demo.output())
				.isNotZero();
			assertThat(demo.output()).contains("stopped shop-1", "stopped shop-2", "stopped redis-server");
			assertNothingLeft(demo);
		}
	}

	private static void assertNothingLeft(DemoProcess demo) throws SQLException {
		assertThat(demo.started()).as("redis-server and two shops, seen while the demo ran")
			.hasSizeGreaterThanOrEqualTo(3);
		assertThat(demo.started()).as("processes the demo started, after it ended").noneMatch(ProcessHandle::isAlive);
		try (Connection connection = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:5432/postgres",
				"postgres", "");
				PreparedStatement query = connection
					.prepareStatement("SELECT count(*) FROM pg_database WHERE datname = ?")) {
			query.setString(1, demo.database());
			try (ResultSet count = query.executeQuery()) {
				count.next();
				assertThat(count.getInt(1)).as("database %s, after the demo ended", demo.database()).isZero();
			}
		}
	}

}
