package io.github.distlock.torture.run;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import io.github.distlock.fixtures.redis.RedisProcess;
import io.github.distlock.torture.history.HistoryLine;
import io.github.distlock.torture.history.HistoryWriter;

/**
 * Carries out a fault plan against the running workers and the lock server, and records each fault with its
 * start and end on the shared monotonic clock, so the checker can attribute what it finds to a fault.
 */
final class FaultInjector implements AutoCloseable {

	/**
	 * Busy loops sharing the starved worker's core: with equal priorities each runnable thread gets its share, so
	 * a few loops already make the worker's threads wait for the core most of the time.
	 */
	private static final int BUSY_LOOPS = 4;

	private final List<WorkerJvm> workers;

	private final RedisProcess redis;

	private final Random random;

	private final Path runDirectory;

	private final HistoryWriter out;

	private final CpuStarvation starvation = new CpuStarvation(BUSY_LOOPS);

	private final ClientKiller clientKiller;

	private final DatabaseLockStore database;

	private final ZooKeeperLockStore zookeeper;

	private final EtcdLockStore etcd;

	private final RedisTopologyStore topology;

	private final LeaderEnsemble ensemble;

	private final Duration lease;

	/**
	 * @param redis the Redis lock server, or null when the locks live elsewhere
	 * @param database the database lock store, or null when the locks live elsewhere
	 * @param zookeeper the ZooKeeper lock store, or null when the locks live elsewhere
	 * @param etcd the etcd lock store, or null when the locks live elsewhere
	 * @param topology the Redis Cluster or Sentinel lock store, or null when the locks live elsewhere
	 * @param ensemble the etcd cluster or ZooKeeper ensemble whose leader {@code leader_kill} kills, or null when the
	 * locks live elsewhere
	 * @param lease the workers' lease, which a lock held through a leader kill must be renewed within
	 */
	FaultInjector(List<WorkerJvm> workers, RedisProcess redis, DatabaseLockStore database,
			ZooKeeperLockStore zookeeper, EtcdLockStore etcd, RedisTopologyStore topology, LeaderEnsemble ensemble,
			Duration lease, Random random, Path runDirectory) {
		this.workers = workers;
		this.redis = redis;
		this.database = database;
		this.zookeeper = zookeeper;
		this.etcd = etcd;
		this.topology = topology;
		this.ensemble = ensemble;
		this.lease = lease;
		this.random = random;
		this.runDirectory = runDirectory;
		this.out = new HistoryWriter(runDirectory.resolve("faults.log"));
		this.clientKiller = (redis != null) ? new ClientKiller(redis.port()) : null;
	}

	/** Runs the plan, the load having started at {@code loadStartNanos}; returns when the last fault is over. */
	void run(FaultPlan plan, long loadStartNanos) throws InterruptedException {
		for (FaultPlan.Planned fault : plan.faults()) {
			sleepUntil(loadStartNanos + TimeUnit.MILLISECONDS.toNanos(fault.atMillis()));
			inject(fault);
		}
	}

	private void inject(FaultPlan.Planned fault) throws InterruptedException {
		switch (fault.kind()) {
			case WORKER_PAUSE -> {
				// Still inside its section when it resumes, so it writes to the fence after the next holder.
				WorkerJvm worker = pickHoldingWorker(TimeUnit.MILLISECONDS.toNanos(300));
				long start = System.nanoTime();
				worker.signal("STOP");
				sleepFor(fault.durationMillis());
				worker.signal("CONT");
				record(fault.kind(), worker.name(), worker.pid(), start, System.nanoTime(), null);
			}
			case WORKER_STARVE -> {
				WorkerJvm worker = pickHoldingWorker(TimeUnit.MILLISECONDS.toNanos(300));
				long start = System.nanoTime();
				try {
					this.starvation.start(worker.pid());
					sleepFor(fault.durationMillis());
				}
				finally {
					this.starvation.stop();
				}
				record(fault.kind(), worker.name(), worker.pid(), start, System.nanoTime(),
						this.starvation.describe());
			}
			case WORKER_KILL -> {
				WorkerJvm worker = pickHoldingWorker(TimeUnit.MILLISECONDS.toNanos(100));
				long start = System.nanoTime();
				worker.signal("KILL");
				record(fault.kind(), worker.name(), worker.pid(), start, System.nanoTime(), null);
			}
			case REDIS_PAUSE -> {
				if (this.topology != null) {
					long start = System.nanoTime();
					long pid = this.topology.pauseMaster(this.random, Duration.ofMillis(fault.durationMillis()));
					// Over once the old master follows the new one: until then calls may still go to it.
					record(fault.kind(), this.topology.faultTarget(), pid, start, System.nanoTime(),
							this.topology.pauseDetail());
					return;
				}
				long pid = this.redis.pid();
				long start = System.nanoTime();
				this.redis.pause();
				sleepFor(fault.durationMillis());
				this.redis.resume();
				record(fault.kind(), "redis", pid, start, System.nanoTime(), null);
			}
			case REDIS_RESTART -> {
				if (this.topology instanceof RedLockLockStore redlock) {
					long start = System.nanoTime();
					long pid = redlock.restartMaster(this.random, Duration.ofMillis(fault.durationMillis()));
					record(fault.kind(), redlock.faultTarget(), pid, start, System.nanoTime(), "1-of-5-masters-empty");
					return;
				}
				long pid = this.redis.pid();
				long start = System.nanoTime();
				this.redis.kill();
				sleepFor(fault.durationMillis());
				// Same port, empty memory: every lock is gone, the scripts too.
				this.redis.restart();
				record(fault.kind(), "redis", pid, start, System.nanoTime(), null);
			}
			case REDIS_KILL -> {
				long start = System.nanoTime();
				long pid = ((ClusterLockStore) this.topology).killMaster(this.random,
						Duration.ofMillis(fault.durationMillis()));
				record(fault.kind(), this.topology.faultTarget(), pid, start, System.nanoTime(),
						"master-killed-replica-promoted");
			}
			case SLOT_MIGRATE -> {
				long start = System.nanoTime();
				String moved = ((ClusterLockStore) this.topology).migrateSlot(this.random);
				record(fault.kind(), "redis", 0, start, System.nanoTime(), moved);
			}
			case CLUSTER_FAILOVER, SENTINEL_FAILOVER -> {
				long start = System.nanoTime();
				String roles = this.topology.failover(this.random);
				record(fault.kind(), "redis", 0, start, System.nanoTime(), roles);
			}
			case CLIENT_KILL_NORMAL -> killConnections(fault, "normal");
			case CLIENT_KILL_PUBSUB -> killConnections(fault, "pubsub");
			case DB_STALL -> {
				long start = System.nanoTime();
				this.database.stall(Duration.ofMillis(fault.durationMillis()));
				record(fault.kind(), "database", 0, start, System.nanoTime(), null);
			}
			case DB_CONNECTION_KILL -> {
				long start = System.nanoTime();
				int killed = 0;
				for (int round = 0; round < FaultPlan.CLIENT_KILL_ROUNDS; round++) {
					if (round > 0) {
						sleepFor(FaultPlan.CLIENT_KILL_INTERVAL.toMillis());
					}
					killed += this.database.killWorkerSessions();
				}
				record(fault.kind(), "workers", 0, start, System.nanoTime(),
						killed + "-sessions-in-" + FaultPlan.CLIENT_KILL_ROUNDS + "-rounds");
			}
			case ZK_PAUSE -> {
				long pid = this.zookeeper.pid();
				long start = System.nanoTime();
				this.zookeeper.pause(Duration.ofMillis(fault.durationMillis()));
				record(fault.kind(), "zookeeper", pid, start, System.nanoTime(), null);
			}
			case ZK_RESTART -> {
				long pid = this.zookeeper.pid();
				long start = System.nanoTime();
				// Same port, same data directory: sessions and nodes come back from the transaction log.
				this.zookeeper.restart();
				record(fault.kind(), "zookeeper", pid, start, System.nanoTime(),
						"serving-again-as-pid-" + this.zookeeper.pid());
			}
			case ETCD_PAUSE -> {
				long pid = this.etcd.pid();
				long start = System.nanoTime();
				this.etcd.pause(Duration.ofMillis(fault.durationMillis()));
				record(fault.kind(), "etcd", pid, start, System.nanoTime(), null);
			}
			case ETCD_RESTART -> {
				long pid = this.etcd.pid();
				long start = System.nanoTime();
				// Same ports, same data directory: keys, leases and the revision come back from disk.
				this.etcd.restart();
				record(fault.kind(), "etcd", pid, start, System.nanoTime(),
						"serving-again-as-pid-" + this.etcd.pid());
			}
			case LEADER_KILL -> {
				// Struck while a section means to hold its lock for a lease more at least: a lock whose renewal must be
				// confirmed through the election (a brief hold would end before anything was at stake).
				pickHoldingWorker(this.lease.toNanos());
				long start = System.nanoTime();
				LeaderKill kill = this.ensemble.killLeader();
				// Over once the killed member follows the new leader.
				record(fault.kind(), this.ensemble.faultTarget(), kill.pid(), start, System.nanoTime(), kill.detail());
			}
		}
	}

	/** Kills every worker connection of the type, a few rounds in a row, so reconnected ones are cut again. */
	private void killConnections(FaultPlan.Planned fault, String type) throws InterruptedException {
		long start = System.nanoTime();
		int killed = 0;
		for (int round = 0; round < FaultPlan.CLIENT_KILL_ROUNDS; round++) {
			if (round > 0) {
				sleepFor(FaultPlan.CLIENT_KILL_INTERVAL.toMillis());
			}
			killed += killWorkerConnections(type);
		}
		// None there at that moment: the workers' connections of this type come and go (on a cluster, a worker
		// subscribes to a lock's channels only while one of its threads waits for that lock). Strike the first ones
		// that show up within the search, as a worker fault waits for a worker in the middle of a section.
		String when = ((killed > 0) ? "in-" : "after-") + FaultPlan.CLIENT_KILL_ROUNDS
				+ ((killed > 0) ? "-rounds" : "-empty-rounds");
		long searchUntil = System.nanoTime() + FaultPlan.SEARCH.toNanos();
		while (killed == 0 && System.nanoTime() - searchUntil < 0) {
			// Polling CLIENT LIST: a new connection announces itself nowhere else.
			TimeUnit.MILLISECONDS.sleep(20);
			killed += killWorkerConnections(type);
		}
		record(fault.kind(), "workers", (this.redis != null) ? this.redis.pid() : 0, start, System.nanoTime(),
				killed + "-" + type + "-connections-" + when);
	}

	private int killWorkerConnections(String type) {
		return (this.topology != null) ? this.topology.killConnections(type) : this.clientKiller.kill(type);
	}

	/**
	 * A live worker in the middle of a section that means to hold its lock for at least so long still; looks for
	 * one for up to {@link FaultPlan#SEARCH}, then takes any live worker.
	 */
	private WorkerJvm pickHoldingWorker(long remainingNanos) throws InterruptedException {
		List<WorkerJvm> live = this.workers.stream().filter(WorkerJvm::isAlive).toList();
		if (live.isEmpty()) {
			throw new IllegalStateException("No live worker left to inject a fault into");
		}
		long searchUntil = System.nanoTime() + FaultPlan.SEARCH.toNanos();
		while (System.nanoTime() - searchUntil < 0) {
			int first = this.random.nextInt(live.size());
			for (int i = 0; i < live.size(); i++) {
				WorkerJvm candidate = live.get((first + i) % live.size());
				Path history = this.runDirectory.resolve("history-" + candidate.name() + ".log");
				if (OpenHolds.longestRemainingNanos(history) >= remainingNanos) {
					return candidate;
				}
			}
			// Polling the histories: a section that starts announces itself nowhere else.
			TimeUnit.MILLISECONDS.sleep(10);
		}
		return live.get(this.random.nextInt(live.size()));
	}

	private void record(FaultKind kind, String target, long pid, long start, long end, String detail) {
		HistoryLine line = HistoryLine.of("fault").with("kind", kind.label()).with("target", target).with("pid", pid)
			.with("start", start).with("end", end).with("wall", Instant.now());
		if (detail != null) {
			line.with("detail", detail);
		}
		this.out.write(line);
	}

	private static void sleepUntil(long nanos) throws InterruptedException {
		long wait = nanos - System.nanoTime();
		if (wait > 0) {
			TimeUnit.NANOSECONDS.sleep(wait);
		}
	}

	private static void sleepFor(long millis) throws InterruptedException {
		// Fault timing: how long a process stays stopped or a server stays down.
		TimeUnit.MILLISECONDS.sleep(millis);
	}

	@Override
	public void close() {
		this.starvation.close();
		this.out.close();
	}

}
