package io.github.distlock.torture.run;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import io.github.distlock.fixtures.redis.RedisProcess;
import io.github.distlock.fixtures.redis.RedisServers;
import io.github.distlock.fixtures.redis.RespClient;
import io.github.distlock.torture.check.CheckReport;
import io.github.distlock.torture.check.RunRecordsReader;
import io.github.distlock.torture.check.TortureChecker;
import io.github.distlock.torture.fence.Fence;
import io.github.distlock.torture.history.HistoryLine;
import io.github.distlock.torture.worker.WorkerProperties.LockMode;

/**
 * One torture run, start to end: a lock server and a fence server, the keyspace recorder, the worker JVMs, the
 * faults, then the wait for every worker and lease to end, and the checker over what was recorded. Everything it
 * starts it stops, also when the run fails half-way or this JVM is shut down.
 */
public final class TortureRun {

	private static final Duration WORKER_START = Duration.ofSeconds(120);

	/** The members of an etcd cluster or a ZooKeeper ensemble: the smallest that survives a member's death. */
	private static final int ENSEMBLE_SIZE = 3;

	/** How long a leader that yielded stays out of the election before it stands again. */
	private static final Duration LEADER_RETRY_PAUSE = Duration.ofMillis(100);

	private final TortureSettings settings;

	private final Path dir;

	private final List<AutoCloseable> started = new ArrayList<>();

	private TortureRun(TortureSettings settings, Path dir) {
		this.settings = settings;
		this.dir = dir;
	}

	/** Runs and checks; the directory keeps every record and the report. */
	public static CheckReport run(TortureSettings settings, Path dir) throws Exception {
		Files.createDirectories(dir);
		TortureRun run = new TortureRun(settings, dir);
		Thread cleanup = new Thread(run::stopAll, "torture-cleanup");
		Runtime.getRuntime().addShutdownHook(cleanup);
		try {
			run.execute();
		}
		finally {
			run.stopAll();
			Runtime.getRuntime().removeShutdownHook(cleanup);
		}
		CheckReport report = TortureChecker.check(dir);
		Files.writeString(dir.resolve("report.txt"), report.render());
		return report;
	}

	private void execute() throws Exception {
		if (this.settings.faults().contains(FaultKind.WORKER_STARVE)) {
			CpuStarvation.requireTaskset();
		}
		RedisProcess lockServer = null;
		KeyspaceRecorder recorder = null;
		DatabaseLockStore database = null;
		ZooKeeperLockStore zookeeper = null;
		EtcdLockStore etcd = null;
		RedisTopologyStore topology = null;
		switch (this.settings.store()) {
			case REDIS -> {
				lockServer = track(RedisServers.startProcess());
				recorder = track(new KeyspaceRecorder(lockServer.port(), RunRecordsReader.lockKeyPattern(this.settings.lockName()),
						this.dir.resolve("keyspace.log")));
				recorder.start(Duration.ofSeconds(10));
			}
			case POSTGRESQL, MARIADB -> database = track(DatabaseLockStore.open(this.settings.store()));
			case ZOOKEEPER -> zookeeper = track(new ZooKeeperLockStore(this.dir));
			case ZOOKEEPER_ENSEMBLE -> zookeeper = track(ZooKeeperLockStore.ensemble(this.dir, ENSEMBLE_SIZE));
			case ETCD -> etcd = track(new EtcdLockStore());
			case ETCD_CLUSTER -> etcd = track(new EtcdLockStore(ENSEMBLE_SIZE));
			case REDIS_CLUSTER -> topology = track(new ClusterLockStore(this.dir, this.settings.keys(), this.settings.lockName()));
			case REDIS_SENTINEL -> topology = track(new SentinelLockStore(this.dir, this.settings.lockName()));
			case REDLOCK -> topology = track(new RedLockLockStore());
		}
		if (recorder == null && (topology == null || !topology.recordsKeyspace())) {
			// A table, a znode or an etcd key notifies no one here of expiries: the checker sees the locks through the workers'
			// records alone.
			writeLines("keyspace.log", List.of());
		}
		RedisProcess fenceServer = track(RedisServers.startProcess());
		List<WorkerJvm> workers = new ArrayList<>();
		for (int i = 1; i <= this.settings.workers(); i++) {
			String name = "w" + i;
			List<String> arguments;
			if (lockServer != null) {
				arguments = redisArguments(name, lockServer.port());
			}
			else if (database != null) {
				arguments = database.workerArguments(name, this.settings.commandTimeout());
			}
			else if (zookeeper != null) {
				arguments = zookeeper.workerArguments(this.settings.sessionTimeout(), this.settings.commandTimeout());
			}
			else if (topology != null) {
				arguments = new ArrayList<>(topology.workerArguments(name, this.settings.commandTimeout()));
				if (this.settings.replicasAcked() > 0) {
					arguments.add("--distlock.redis.min-replicas-acked=" + this.settings.replicasAcked());
					arguments.add("--distlock.redis.replica-ack-timeout="
							+ TortureSettings.REPLICA_ACK_TIMEOUT.toMillis() + "ms");
				}
			}
			else {
				arguments = etcd.workerArguments(this.settings.sessionTimeout(), this.settings.commandTimeout());
			}
			workers.add(startWorker(name, arguments, fenceServer.port()));
		}
		for (WorkerJvm worker : workers) {
			worker.awaitLine("READY", WORKER_START);
		}
		long loadStart = System.nanoTime();
		long loadEnd = loadStart + this.settings.load().toNanos();
		workers.forEach((worker) -> worker.send("GO " + this.settings.load().toMillis()));
		writeParameters(loadStart, loadEnd, workers);
		Random random = new Random(this.settings.seed());
		FaultPlan plan = FaultPlan.random(this.settings, random);
		LeaderEnsemble ensemble = switch (this.settings.store()) {
			case ETCD_CLUSTER -> etcd.ensemble();
			case ZOOKEEPER_ENSEMBLE -> zookeeper.ensemble();
			default -> null;
		};
		// Tracked too: a shutdown in the middle of a fault must still unpin the worker and end the busy loops.
		try (FaultInjector injector = track(new FaultInjector(workers, lockServer, database, zookeeper, etcd, topology,
				ensemble, this.settings.lease(), random, this.dir))) {
			injector.run(plan, loadStart);
		}
		awaitWorkers(workers, loadEnd);
		if (lockServer != null) {
			RedisProcess server = lockServer;
			awaitLocksGone(() -> {
				try (RespClient client = server.client()) {
					// Not the token floor, which outlives the locks by design (a few seconds after the last grant).
					return client.lockKeys("distlock*");
				}
			});
			recorder.close();
		}
		else if (database != null) {
			awaitLocksGone(database::heldKeys);
		}
		else if (zookeeper != null) {
			awaitLocksGone(zookeeper::heldKeys);
		}
		else if (topology != null) {
			awaitLocksGone(topology::heldKeys);
		}
		else {
			awaitLocksGone(etcd::heldKeys);
		}
		try (RespClient fence = fenceServer.client()) {
			writeLines("fence.log", Fence.log(fence));
		}
	}

	/** Points a worker's Redis engine at the lock server. */
	private List<String> redisArguments(String name, int lockPort) {
		return RedisWorkerArguments.of(name, this.settings.commandTimeout(), "--spring.data.redis.host=127.0.0.1",
				"--spring.data.redis.port=" + lockPort);
	}

	private WorkerJvm startWorker(String name, List<String> storeArguments, int fencePort) {
		List<String> arguments = new ArrayList<>(storeArguments);
		// Warnings and errors only in a worker's output: the run records what happens in its own files.
		arguments.addAll(List.of("--logging.level.root=WARN", "--torture.worker=" + name,
				"--torture.history=" + this.dir.resolve("history-" + name + ".log"),
				"--torture.fence-port=" + fencePort, "--torture.threads=" + this.settings.threads(),
				"--torture.keys=" + String.join(",", this.settings.keys()),
				"--torture.lease=" + this.settings.lease().toMillis() + "ms",
				"--torture.wait-time=" + this.settings.waitTime().toMillis() + "ms",
				"--torture.seed=" + this.settings.seed(), "--torture.lock-mode=" + this.settings.lockMode(),
				"--torture.fence-checked=" + this.settings.fenceChecked()));
		if (this.settings.lockMode() == LockMode.LEADER) {
			// The term's lease is the locks' one, so that every fault lasts as long against it; a yielded candidate
			// stands again soon, so that terms change hands often.
			arguments.addAll(List.of("--distlock.leader.lease=" + this.settings.lease().toMillis() + "ms",
					"--distlock.leader.retry-pause=" + LEADER_RETRY_PAUSE.toMillis() + "ms"));
		}
		return track(WorkerJvm.start(name, this.dir.resolve("worker-" + name + ".out"), arguments));
	}

	private void awaitWorkers(List<WorkerJvm> workers, long loadEnd) throws InterruptedException {
		// A call started just before the end may wait and hold once more; the workers bound their own threads too.
		long bound = loadEnd + this.settings.waitTime().plus(this.settings.longestHold()).plusSeconds(45).toNanos();
		for (WorkerJvm worker : workers) {
			long remaining = Math.max(0, bound - System.nanoTime());
			if (!worker.waitForExit(Duration.ofNanos(remaining))) {
				// Its history lacks "finished", which the checker reports; stop it so the run can end.
				worker.close();
			}
		}
	}

	/** What still holds a lock in the store: keys under the library's prefix, unexpired rows, or ephemeral nodes. */
	@FunctionalInterface
	private interface HeldKeys {

		List<String> read() throws IOException;

	}

	/**
	 * Waits until the store holds nothing of the library (for Redis, lock keys and any other key under its prefix
	 * such as waiter queues), as long as a lease (or the session of a worker that did not close it) and a wait could
	 * keep something alive.
	 */
	private void awaitLocksGone(HeldKeys store) throws InterruptedException, IOException {
		long deadline = System.nanoTime()
				+ this.settings.deadHolderBound().plus(this.settings.waitTime()).plusSeconds(2).toNanos();
		List<String> keys;
		while (true) {
			keys = store.read();
			if (keys.isEmpty() || System.nanoTime() - deadline > 0) {
				break;
			}
			// A lease still running out in the store: nothing announces its end to a poller.
			TimeUnit.MILLISECONDS.sleep(50);
		}
		writeLines("keys-at-end.log", keys.stream().map((key) -> HistoryLine.of("left").with("key", key).toString())
			.toList());
	}

	private void writeParameters(long loadStart, long loadEnd, List<WorkerJvm> workers) throws IOException {
		Properties properties = new Properties();
		properties.setProperty("description", this.settings.describe());
		properties.setProperty("lease-millis", String.valueOf(this.settings.lease().toMillis()));
		properties.setProperty("wait-time-millis", String.valueOf(this.settings.waitTime().toMillis()));
		properties.setProperty("command-timeout-millis", String.valueOf(this.settings.commandTimeout().toMillis()));
		properties.setProperty("session-timeout-millis", String.valueOf(this.settings.sessionTimeout().toMillis()));
		properties.setProperty("longest-hold-millis", String.valueOf(this.settings.longestHold().toMillis()));
		properties.setProperty("replicas-acked", String.valueOf(this.settings.replicasAcked()));
		properties.setProperty("lock-name", this.settings.lockName());
		properties.setProperty("replica-ack-timeout-millis", String.valueOf(TortureSettings.REPLICA_ACK_TIMEOUT.toMillis()));
		properties.setProperty("load-start-nanos", String.valueOf(loadStart));
		properties.setProperty("load-end-nanos", String.valueOf(loadEnd));
		properties.setProperty("workers", String.join(",", workers.stream().map(WorkerJvm::name).toList()));
		try (OutputStream out = Files.newOutputStream(this.dir.resolve("run.properties"))) {
			properties.store(out, null);
		}
	}

	private void writeLines(String file, List<String> lines) throws IOException {
		StringBuilder text = new StringBuilder();
		lines.forEach((line) -> text.append(line).append('\n'));
		Files.writeString(this.dir.resolve(file), text, StandardCharsets.UTF_8);
	}

	private <T extends AutoCloseable> T track(T resource) {
		synchronized (this.started) {
			this.started.add(resource);
		}
		return resource;
	}

	/** Stops whatever is still running, newest first. Safe to call twice. */
	private void stopAll() {
		List<AutoCloseable> toStop;
		synchronized (this.started) {
			toStop = new ArrayList<>(this.started);
			this.started.clear();
		}
		for (int i = toStop.size() - 1; i >= 0; i--) {
			try {
				toStop.get(i).close();
			}
			catch (Exception ex) {
				// keep stopping the others
			}
		}
	}

}
