package io.github.distlock.torture.run;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.github.distlock.torture.check.CheckReport;
import io.github.distlock.torture.check.FaultRecord;
import io.github.distlock.torture.check.RunRecords;
import io.github.distlock.torture.check.RunRecordsReader;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The short torture run, in the build: three worker JVMs under each fault once: a paused worker, a killed worker, a
 * worker starved of CPU, a stalled Redis, a Redis restarted empty, and the workers' command connections and
 * subscription connections killed. Fails on any violation the checker finds; the report is printed either way, and the
 * records stay in {@code target/torture}. Repeat a run with {@code -Dtorture.seed=N}.
 */
class ShortTortureRunTests {

	@Test
	@Timeout(value = 4, unit = TimeUnit.MINUTES)
	void mutualExclusionHoldsAndEveryFaultIsDetectedOrFencedOff() throws Exception {
		TortureSettings settings = TortureSettings.shortRun(RunDirectories.seed());
		Path dir = RunDirectories.forRun(settings.name());
		CheckReport report = TortureRun.run(settings, dir);
		System.out.println(report.render());
		System.out.println("Records in " + dir.toAbsolutePath());

		assertThat(report.violations()).as(report.render()).isEmpty();
		// A pass proves something only if the load ran and the faults struck.
		RunRecords records = RunRecordsReader.read(dir);
		assertThat(records.faults()).extracting(FaultRecord::kind)
			.containsExactlyInAnyOrder("worker_pause", "worker_kill", "worker_starve", "redis_pause", "redis_restart",
					"client_kill_normal", "client_kill_pubsub");
		assertThat(records.faults()).filteredOn((fault) -> fault.kind().startsWith("client_kill"))
			.as("connection kills that found the workers' connections")
			.allMatch((fault) -> !fault.detail().startsWith("0-"));
		assertThat(records.acquisitions()).as("acquisitions").hasSizeGreaterThan(200);
		assertThat(records.lossReports()).as("locks lost to a stalled or restarted Redis, or a paused holder")
			.isNotEmpty();
	}

}
