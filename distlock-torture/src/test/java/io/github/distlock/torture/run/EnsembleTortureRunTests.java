package io.github.distlock.torture.run;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.github.distlock.torture.check.FaultRecord;
import io.github.distlock.torture.check.RunRecords;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The short torture runs on replicated stores: three worker JVMs on an etcd cluster of three members, and on a
 * ZooKeeper ensemble of three servers, each under a paused, a killed and a starved worker and the ensemble's leader
 * killed (and started again on its data once another was elected). Left out of the build's test run, like
 * {@link ShortTortureRunTests}, for CI's time; run them with
 * {@code ./mvnw -pl distlock-torture -am verify -Dtest=EnsembleTortureRunTests -Dsurefire.failIfNoSpecifiedTests=false}.
 * Fails on any violation the checker finds; the report is printed either way, and the records stay in
 * {@code target/torture}. Repeat a run with {@code -Dtorture.seed=N}.
 */
class EnsembleTortureRunTests {

	@Test
	@Timeout(value = 4, unit = TimeUnit.MINUTES)
	void onAnEtcdClusterMutualExclusionHoldsAndALeaderKillCostsNoLockItDidNotPutAtRisk() throws Exception {
		assertLeaderKilledAndBack(ShortTortureRunTests.runAndCheck(StoreKind.ETCD_CLUSTER), "etcd");
	}

	@Test
	@Timeout(value = 4, unit = TimeUnit.MINUTES)
	void onAZooKeeperEnsembleMutualExclusionHoldsAndALeaderKillCostsNoLockItDidNotPutAtRisk() throws Exception {
		assertLeaderKilledAndBack(ShortTortureRunTests.runAndCheck(StoreKind.ZOOKEEPER_ENSEMBLE), "zookeeper");
	}

	/** Every fault struck, the leader kill among them, and it ended with a new leader and the killed member back. */
	private static void assertLeaderKilledAndBack(RunRecords records, String target) {
		assertThat(records.faults()).extracting(FaultRecord::kind)
			.containsExactlyInAnyOrder("worker_pause", "worker_kill", "worker_starve", "leader_kill");
		FaultRecord kill = records.faults().stream().filter((fault) -> fault.kind().equals("leader_kill"))
			.findFirst().orElseThrow();
		assertThat(kill.target()).isEqualTo(target);
		assertThat(kill.detail()).as("a new leader, and the killed one back as a follower")
			.matches("leader-\\S+-killed-\\S+-elected-after-\\d+-ms-\\S+-rejoined-after-\\d+-ms");
		assertThat(Duration.ofNanos(kill.endNanos() - kill.startNanos())).as("the leader kill's length")
			.isPositive();
		assertThat(records.lossReports()).as("locks lost to a paused holder at least").isNotEmpty();
	}

}
