package io.github.distlock.torture.run;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import io.github.distlock.torture.check.Acquisition;
import io.github.distlock.torture.check.CheckReport;
import io.github.distlock.torture.check.FaultRecord;
import io.github.distlock.torture.check.RunRecords;
import io.github.distlock.torture.check.RunRecordsReader;
import io.github.distlock.torture.worker.WorkerProperties.LockMode;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The short torture runs, in the build: three worker JVMs under each fault once. On Redis: a paused worker, a killed
 * worker, a worker starved of CPU, a stalled Redis, a Redis restarted empty, and the workers' command connections and
 * subscription connections killed. On PostgreSQL and on MariaDB (the JDBC engine): the same worker faults, the lock
 * table locked away from the workers for longer than the lease, and the workers' database sessions terminated. On
 * ZooKeeper: the same worker faults, the server stopped for longer than the session timeout, and the server killed and
 * started again on its data. On etcd: the same worker faults, the server stopped for longer than the instance lease,
 * and the server killed and started again on its data. On a Redis Cluster (three masters, each with a replica): the
 * same worker faults, a master stopped until its replica took over, a master killed, a hot key's slot moved to
 * another master under load, a coordinated failover, and the workers' connections killed on every master. Behind Sentinel (a master, a
 * replica, three sentinels): the same worker faults, the master stopped until the sentinels replaced it (it comes back
 * as a stale master until they reconfigure it), a forced failover, and the workers' connections killed. On a RedLock
 * (five independent masters): the same worker faults, two masters stopped past the lease, one killed and started
 * again empty, and the workers' connections killed on every master. Leader election on Redis, under Redis' faults:
 * the workers' sections run as {@code @LeaderOnly} work, one term each. Fails on any
 * violation the checker finds; the report is
 * printed either way, and the records stay in {@code target/torture}. Repeat a run with {@code -Dtorture.seed=N}.
 * <p>
 * Two runs go at a time (the module's JUnit pool has two threads): each has its own servers, ports, database and
 * directory, and a run's workers and store use about a third of one core, so a run's neighbour leaves it the CPU it
 * needs. A neighbour cannot make a run pass that should fail: the checker excuses a loss only by a fault of its own
 * run or by a stall the worker itself measured, and anything else fails the run.
 */
@Execution(ExecutionMode.CONCURRENT)
class ShortTortureRunTests {

	@Test
	@Timeout(value = 4, unit = TimeUnit.MINUTES)
	void onRedisMutualExclusionHoldsAndEveryFaultIsDetectedOrFencedOff() throws Exception {
		RunRecords records = runAndCheck(StoreKind.REDIS);
		assertThat(records.faults()).extracting(FaultRecord::kind)
			.containsExactlyInAnyOrder("worker_pause", "worker_kill", "worker_starve", "redis_pause", "redis_restart",
					"client_kill_normal", "client_kill_pubsub");
		assertThat(records.lossReports()).as("locks lost to a stalled or restarted Redis, or a paused holder")
			.isNotEmpty();
	}

	/**
	 * Leader election under the same faults: one leader at a time, epochs that only grow, and every late write of a
	 * revoked leader refused by the fence, checked by the same rules as the locks (each term is an acquisition).
	 */
	@Test
	@Timeout(value = 4, unit = TimeUnit.MINUTES)
	void onRedisOneLeaderAtATimeAndEveryRevokedLeaderIsToldOrFencedOff() throws Exception {
		RunRecords records = runAndCheck(TortureSettings.shortRun(RunDirectories.seed(), StoreKind.REDIS)
			.asLeaderElection());
		assertThat(records.faults()).extracting(FaultRecord::kind)
			.containsExactlyInAnyOrder("worker_pause", "worker_kill", "worker_starve", "redis_pause", "redis_restart",
					"client_kill_normal", "client_kill_pubsub");
		assertThat(records.acquisitions()).extracting(Acquisition::worker)
			.as("terms held by every worker")
			.containsAll(records.parameters().workers());
		assertThat(records.lossReports()).as("terms lost to a stalled or restarted Redis, or a paused leader")
			.isNotEmpty();
	}

	@Test
	@Timeout(value = 4, unit = TimeUnit.MINUTES)
	void onARedisClusterMutualExclusionHoldsAndEveryFaultIsDetectedOrFencedOff() throws Exception {
		RunRecords records = runAndCheck(StoreKind.REDIS_CLUSTER);
		assertThat(records.faults()).extracting(FaultRecord::kind)
			.containsExactlyInAnyOrder("worker_pause", "worker_kill", "worker_starve", "redis_pause", "redis_kill",
					"client_kill_normal", "client_kill_pubsub", "slot_migrate", "cluster_failover");
		assertThat(records.lossReports()).as("locks lost to a failed master or a paused holder").isNotEmpty();
	}

	@Test
	@Timeout(value = 4, unit = TimeUnit.MINUTES)
	void behindSentinelMutualExclusionHoldsAndEveryFaultIsDetectedOrFencedOff() throws Exception {
		RunRecords records = runAndCheck(StoreKind.REDIS_SENTINEL);
		assertThat(records.faults()).extracting(FaultRecord::kind)
			.containsExactlyInAnyOrder("worker_pause", "worker_kill", "worker_starve", "redis_pause",
					"client_kill_normal", "client_kill_pubsub", "sentinel_failover");
		assertThat(records.lossReports()).as("locks lost to a replaced master or a paused holder").isNotEmpty();
	}

	@Test
	@Timeout(value = 4, unit = TimeUnit.MINUTES)
	void onARedLockMutualExclusionHoldsAndAMinorityOfMastersDownCostsNoLock() throws Exception {
		RunRecords records = runAndCheck(StoreKind.REDLOCK);
		assertThat(records.faults()).extracting(FaultRecord::kind)
			.containsExactlyInAnyOrder("worker_pause", "worker_kill", "worker_starve", "redis_pause", "redis_restart",
					"client_kill_normal");
		assertThat(records.lossReports()).as("locks lost to a paused holder, or held on a bare majority").isNotEmpty();
	}

	@ParameterizedTest(name = "on {0}")
	@EnumSource(names = { "POSTGRESQL", "MARIADB" })
	@Timeout(value = 4, unit = TimeUnit.MINUTES)
	void onADatabaseMutualExclusionHoldsAndEveryFaultIsDetectedOrFencedOff(StoreKind store) throws Exception {
		RunRecords records = runAndCheck(store);
		assertThat(records.faults()).extracting(FaultRecord::kind)
			.containsExactlyInAnyOrder("worker_pause", "worker_kill", "worker_starve", "db_stall",
					"db_connection_kill");
		assertThat(records.lossReports()).as("locks lost to a stalled lock table or a paused holder").isNotEmpty();
	}

	@Test
	@Timeout(value = 4, unit = TimeUnit.MINUTES)
	void onZooKeeperMutualExclusionHoldsAndEveryFaultIsDetectedOrFencedOff() throws Exception {
		RunRecords records = runAndCheck(StoreKind.ZOOKEEPER);
		assertThat(records.faults()).extracting(FaultRecord::kind)
			.containsExactlyInAnyOrder("worker_pause", "worker_kill", "worker_starve", "zk_pause", "zk_restart");
		assertThat(records.lossReports()).as("locks lost to a stalled ZooKeeper or a paused holder").isNotEmpty();
	}

	@Test
	@Timeout(value = 4, unit = TimeUnit.MINUTES)
	void onEtcdMutualExclusionHoldsAndEveryFaultIsDetectedOrFencedOff() throws Exception {
		RunRecords records = runAndCheck(StoreKind.ETCD);
		assertThat(records.faults()).extracting(FaultRecord::kind)
			.containsExactlyInAnyOrder("worker_pause", "worker_kill", "worker_starve", "etcd_pause", "etcd_restart");
		assertThat(records.lossReports()).as("locks lost to a stalled etcd or a paused holder").isNotEmpty();
	}

	/** One short run on the store, checked: no violation, and the load ran (the ensemble runs check theirs so too). */
	static RunRecords runAndCheck(StoreKind store) throws Exception {
		return runAndCheck(TortureSettings.shortRun(RunDirectories.seed(), store));
	}

	static RunRecords runAndCheck(TortureSettings settings) throws Exception {
		Path dir = RunDirectories.forRun(settings.name());
		CheckReport report = TortureRun.run(settings, dir);
		System.out.println(report.render());
		System.out.println("Records in " + dir.toAbsolutePath());

		assertThat(report.violations()).as(report.render()).isEmpty();
		// A pass proves something only if the load ran and the faults struck.
		RunRecords records = RunRecordsReader.read(dir);
		// On a cluster a worker subscribes to a lock's channels only while one of its threads waits for it: the pub/sub
		// kill strikes the first subscriptions that show up within its search, and finding none there means no
		// waiter of any worker was subscribed for seconds, as when a migrated lock's channels could not be subscribed
		// again (Redisson's subscriptions, since replaced: RedisClusterSubscriptionIntegrationTests).
		assertThat(records.faults()).filteredOn(FaultRecord::isConnectionKill)
			.as("connection kills that found the workers' connections")
			.allMatch((fault) -> !fault.detail().startsWith("0-"));
		// A leader's terms come one at a time, their sections 0.6 s long on average: at least one every two seconds.
		assertThat(records.acquisitions()).as("acquisitions")
			.hasSizeGreaterThan((settings.lockMode() == LockMode.LEADER) ? (int) settings.load().toSeconds() / 2 : 200);
		return records;
	}

}
