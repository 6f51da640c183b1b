package io.github.distlock.torture.run;

import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import io.github.distlock.torture.check.Acquisition;
import io.github.distlock.torture.check.FaultRecord;
import io.github.distlock.torture.check.RunRecords;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Leader election's short torture runs on the stores other than Redis (whose run is one of
 * {@link ShortTortureRunTests}, in CI): three worker JVMs whose sections run as {@code @LeaderOnly} work, one term
 * each, under a paused, a killed and a starved leader and the store's own faults. Left out of the build's test run
 * for CI's time, like {@link EnsembleTortureRunTests}; run them with
 * {@code ./mvnw -pl distlock-torture -am verify -Dtest=LeaderTortureRunTests -Dsurefire.failIfNoSpecifiedTests=false}.
 */
class LeaderTortureRunTests {

	@ParameterizedTest(name = "on {0}")
	@EnumSource(names = { "POSTGRESQL", "MARIADB", "ZOOKEEPER", "ETCD", "REDIS_CLUSTER" })
	@Timeout(value = 4, unit = TimeUnit.MINUTES)
	void oneLeaderAtATimeAndEveryRevokedLeaderIsToldOrFencedOff(StoreKind store) throws Exception {
		RunRecords records = ShortTortureRunTests
			.runAndCheck(TortureSettings.shortRun(RunDirectories.seed(), store).asLeaderElection());
		assertThat(records.faults()).extracting(FaultRecord::kind)
			.contains("worker_pause", "worker_kill", "worker_starve");
		assertThat(records.acquisitions()).extracting(Acquisition::worker)
			.as("terms held by every worker")
			.containsAll(records.parameters().workers());
		assertThat(records.lossReports()).as("terms lost to a paused leader at least").isNotEmpty();
	}

}
