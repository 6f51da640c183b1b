package io.github.distlock.torture.run;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import io.github.distlock.etcd.EtcdLockEngine;
import io.github.distlock.leader.LeaderElection;
import io.github.distlock.torture.check.RunRecordsReader;
import io.github.distlock.torture.worker.HoldTimes;
import io.github.distlock.torture.worker.LeaderSection;
import io.github.distlock.torture.worker.WorkerProperties.LockMode;

/**
 * What a run does: how many workers and threads lock which keys, with what lease, for how long, under which
 * faults.
 *
 * @param name names the run's directory
 * @param workers worker JVMs
 * @param threads threads per worker
 * @param keys the hot keys
 * @param lease the lease of every lock
 * @param waitTime how long a call waits
 * @param commandTimeout the workers' Redis command timeout ({@code spring.data.redis.timeout}), their statement
 * timeout ({@code distlock.jdbc.statement-timeout}), or their ZooKeeper connection timeout
 * ({@code distlock.zookeeper.connection-timeout}, how long a call waits for the connection before each try), or
 * the etcd engine's limit on one call
 * @param sessionTimeout the workers' ZooKeeper session timeout or etcd instance lease, which bounds how long a dead
 * worker keeps its locks; zero for the stores where only a lease does
 * @param clean the fault-free opening of the load
 * @param spare how much of each fault's slot the fault may strike in, at random; the slot also leaves the fault
 * time to find a worker, to last and to settle
 * @param tail fault-free time after the last slot
 * @param faults the faults, injected in a random order
 * @param seed seeds everything random in the run
 * @param lockMode the real annotation, leader election, or the broken lock of the negative control
 * @param fenceChecked whether the fence checks tokens
 * @param store the lock store, so the engine under test
 * @param replicasAcked the workers' {@code distlock.redis.min-replicas-acked}: how many replicas must have a new lock
 * before its holder gets it (0: no acknowledgement)
 */
public record TortureSettings(String name, int workers, int threads, List<String> keys, Duration lease,
		Duration waitTime, Duration commandTimeout, Duration sessionTimeout, Duration clean, Duration spare,
		Duration tail, List<FaultKind> faults, long seed, LockMode lockMode, boolean fenceChecked, StoreKind store,
		int replicasAcked) {

	private static final Duration LEASE = Duration.ofSeconds(1);

	private static final Duration WAIT = Duration.ofSeconds(2);

	private static final Duration COMMAND_TIMEOUT = Duration.ofMillis(500);

	/** How long a worker waits for its replica's acknowledgement of a grant, on loopback. */
	public static final Duration REPLICA_ACK_TIMEOUT = Duration.ofMillis(500);

	/** JDBC counts statement timeouts in whole seconds. */
	private static final Duration STATEMENT_TIMEOUT = Duration.ofSeconds(1);

	/**
	 * The ZooKeeper workers' session timeout. A client that loses its connection to a single server tries again only
	 * after 1 to 2 s (ZooKeeper's client waits a second before it tries the same server again, and up to another
	 * at random), so a restarted server has its clients back 1 to 4 s after the kill: the session must outlast that,
	 * or a restart would end sessions. It also bounds how long a killed worker keeps its lock, and a pause must
	 * outlast it to end sessions, so it is no longer than needed. In an ensemble, a client dropped by its server when
	 * the leader dies moves to another server, and the new leader gives every session its full timeout again, so a
	 * leader kill need only be outlasted by the election and a reconnection.
	 */
	private static final Duration SESSION_TIMEOUT = Duration.ofSeconds(4);

	/**
	 * The ZooKeeper workers' connection timeout: how long a call waits for a connection before each try. As long as
	 * the Redis command timeout and the statement timeout, so the checker's bounds mean the same.
	 */
	private static final Duration CONNECTION_TIMEOUT = Duration.ofSeconds(1);

	/**
	 * The etcd workers' instance lease: like the ZooKeeper session, it bounds how long a killed worker keeps its
	 * locks, and a pause of the server or of a worker must outlast it to end it. A restarted etcd gives every lease
	 * its full time to live again, so it need not outlast a restart.
	 */
	private static final Duration INSTANCE_LEASE = Duration.ofSeconds(4);

	/**
	 * The short run of the build: 3 workers, each fault the store can undergo once, about a minute in all. Its
	 * fault-free opening is 3 s: each worker has started its application, which checks its store at start-up, before
	 * the load starts, so the opening only has to show the load running, in some hundred acquisitions, before the
	 * first fault.
	 */
	public static TortureSettings shortRun(long seed, StoreKind store) {
		return new TortureSettings(runName("short", store), 3, 6, List.of("hot-0", "hot-1", "hot-2"), LEASE, WAIT,
				commandTimeout(store), sessionTimeout(store), Duration.ofSeconds(3), Duration.ofSeconds(1),
				Duration.ofSeconds(2), FaultKind.forStore(store), seed, LockMode.ANNOTATION, true, store,
				replicasAcked(store));
	}

	/** The long run: 5 workers, every fault several times, a few minutes. */
	public static TortureSettings longRun(long seed, StoreKind store) {
		List<FaultKind> faults = new ArrayList<>();
		faults.addAll(Collections.nCopies(4, FaultKind.WORKER_PAUSE));
		faults.addAll(Collections.nCopies(3, FaultKind.WORKER_STARVE));
		faults.addAll(Collections.nCopies(2, FaultKind.WORKER_KILL));
		switch (store) {
			case REDIS_CLUSTER -> {
				faults.addAll(Collections.nCopies(3, FaultKind.REDIS_PAUSE));
				faults.addAll(Collections.nCopies(3, FaultKind.REDIS_KILL));
				faults.addAll(Collections.nCopies(3, FaultKind.CLIENT_KILL_NORMAL));
				faults.addAll(Collections.nCopies(2, FaultKind.CLIENT_KILL_PUBSUB));
				faults.addAll(Collections.nCopies(4, FaultKind.SLOT_MIGRATE));
				faults.addAll(Collections.nCopies(4, FaultKind.CLUSTER_FAILOVER));
			}
			case REDIS_SENTINEL -> {
				faults.addAll(Collections.nCopies(4, FaultKind.REDIS_PAUSE));
				faults.addAll(Collections.nCopies(3, FaultKind.CLIENT_KILL_NORMAL));
				faults.addAll(Collections.nCopies(2, FaultKind.CLIENT_KILL_PUBSUB));
				faults.addAll(Collections.nCopies(4, FaultKind.SENTINEL_FAILOVER));
			}
			case REDLOCK -> {
				faults.addAll(Collections.nCopies(4, FaultKind.REDIS_PAUSE));
				faults.addAll(Collections.nCopies(4, FaultKind.REDIS_RESTART));
				faults.addAll(Collections.nCopies(3, FaultKind.CLIENT_KILL_NORMAL));
			}
			case REDIS -> {
				faults.addAll(Collections.nCopies(4, FaultKind.REDIS_PAUSE));
				faults.addAll(Collections.nCopies(4, FaultKind.REDIS_RESTART));
				faults.addAll(Collections.nCopies(3, FaultKind.CLIENT_KILL_NORMAL));
				faults.addAll(Collections.nCopies(3, FaultKind.CLIENT_KILL_PUBSUB));
			}
			case POSTGRESQL, MARIADB -> {
				faults.addAll(Collections.nCopies(5, FaultKind.DB_STALL));
				faults.addAll(Collections.nCopies(4, FaultKind.DB_CONNECTION_KILL));
			}
			case ZOOKEEPER -> {
				faults.addAll(Collections.nCopies(4, FaultKind.ZK_PAUSE));
				faults.addAll(Collections.nCopies(5, FaultKind.ZK_RESTART));
			}
			case ETCD -> {
				faults.addAll(Collections.nCopies(4, FaultKind.ETCD_PAUSE));
				faults.addAll(Collections.nCopies(5, FaultKind.ETCD_RESTART));
			}
			case ETCD_CLUSTER, ZOOKEEPER_ENSEMBLE -> faults.addAll(Collections.nCopies(6, FaultKind.LEADER_KILL));
		}
		return new TortureSettings(runName("long", store), 5, 6, List.of("hot-0", "hot-1", "hot-2", "hot-3"), LEASE,
				WAIT, commandTimeout(store), sessionTimeout(store), Duration.ofSeconds(15), Duration.ofMillis(1500),
				Duration.ofSeconds(3), faults, seed, LockMode.ANNOTATION, true, store, replicasAcked(store));
	}

	/**
	 * Behind Sentinel the workers ask one replica to acknowledge every new lock, as an application that must not
	 * lose a lock to a failover would: a stale master (a demoted one that has not heard yet, or one the sentinels
	 * replaced while it was stopped) has no replica, so it grants nothing. {@link #withoutReplicaAcknowledgement()}
	 * runs without, to show what that setting prevents.
	 */
	private static int replicasAcked(StoreKind store) {
		return (store == StoreKind.REDIS_SENTINEL) ? 1 : 0;
	}

	/**
	 * The same run with no replica acknowledgement: behind Sentinel, a stale master then grants locks another
	 * holder has on the new master, and only the fence keeps their writes in order (the checker counts them).
	 */
	public TortureSettings withoutReplicaAcknowledgement() {
		return new TortureSettings(this.name + "-no-ack", this.workers, this.threads, this.keys, this.lease,
				this.waitTime, this.commandTimeout, this.sessionTimeout, this.clean, this.spare, this.tail, this.faults,
				this.seed, this.lockMode, this.fenceChecked, this.store, 0);
	}

	private static Duration commandTimeout(StoreKind store) {
		return switch (store) {
			case REDIS, REDIS_CLUSTER, REDIS_SENTINEL, REDLOCK -> COMMAND_TIMEOUT;
			case POSTGRESQL, MARIADB -> STATEMENT_TIMEOUT;
			case ZOOKEEPER, ZOOKEEPER_ENSEMBLE -> CONNECTION_TIMEOUT;
			// The engine gives every call to etcd this long; it has no setting of its own.
			case ETCD, ETCD_CLUSTER -> EtcdLockEngine.CALL_TIMEOUT;
		};
	}

	private static Duration sessionTimeout(StoreKind store) {
		return switch (store) {
			case ZOOKEEPER, ZOOKEEPER_ENSEMBLE -> SESSION_TIMEOUT;
			case ETCD, ETCD_CLUSTER -> INSTANCE_LEASE;
			case REDIS, REDIS_CLUSTER, REDIS_SENTINEL, REDLOCK, POSTGRESQL, MARIADB -> Duration.ZERO;
		};
	}

	private static String runName(String length, StoreKind store) {
		return (store == StoreKind.REDIS) ? length : length + "-" + store.name().toLowerCase().replace('_', '-');
	}

	/**
	 * The same run on leader election: one thread per worker runs the leader's work ({@code @LeaderOnly}) when its
	 * worker leads, one section per term, under the same faults. Each term is an acquisition of the election's lock
	 * to the checker, whose rules then say what a leader needs: one leader at a time (no overlap unless the older was
	 * told or fenced off), epochs that only grow (tokens), and a revoked leader's late writes refused (the fence).
	 */
	public TortureSettings asLeaderElection() {
		return new TortureSettings(this.name + "-leader", this.workers, 1, List.of(LeaderSection.ELECTION),
				this.lease, this.waitTime, this.commandTimeout, this.sessionTimeout, this.clean, this.spare, this.tail,
				this.faults, this.seed, LockMode.LEADER, this.fenceChecked, this.store, this.replicasAcked);
	}

	/** The name of the workers' lock, as the store's keys carry it. */
	public String lockName() {
		return (this.lockMode == LockMode.LEADER) ? LeaderElection.LOCK_NAME : RunRecordsReader.LOCK_NAME;
	}

	/** The negative control: a broken lock and an unchecked fence, no faults; the checker must object. */
	public static TortureSettings negativeControl(long seed) {
		return new TortureSettings("negative", 3, 4, List.of("hot-0", "hot-1"), LEASE, WAIT, COMMAND_TIMEOUT,
				Duration.ZERO, Duration.ofSeconds(6), Duration.ofSeconds(1), Duration.ZERO, List.of(), seed,
				LockMode.BROKEN, false, StoreKind.REDIS, 0);
	}

	public Duration load() {
		return this.clean.plus(FaultPlan.length(this)).plus(this.tail);
	}

	public Duration longestHold() {
		return HoldTimes.longest(this.lease);
	}

	/**
	 * The longest the store keeps the lock of a holder that died: the lease, or the session timeout where a session
	 * outlives it (ZooKeeper keeps a dead client's nodes until its session expires, etcd its keys until its lease
	 * does).
	 */
	public Duration deadHolderBound() {
		return (this.sessionTimeout.compareTo(this.lease) > 0) ? this.sessionTimeout : this.lease;
	}

	/** How long a fault's effects may show after it ends; a slot leaves at least this much. */
	public Duration settle() {
		return longestHold().plus(this.lease).plusSeconds(1);
	}

	public String describe() {
		return this.name + ": " + switch (this.store) {
			case REDIS_CLUSTER -> "redis engine on a cluster";
			case REDIS_SENTINEL -> "redis engine behind sentinel";
			case REDLOCK -> "redlock engine on 5 independent masters";
			case ETCD_CLUSTER -> "etcd engine on a 3-member cluster";
			case ZOOKEEPER_ENSEMBLE -> "zookeeper engine on a 3-server ensemble";
			default -> this.store.name().toLowerCase() + " engine";
		} + ", " + this.workers + " workers x "
				+ this.threads + " threads on " + this.keys.size() + " keys, lease " + this.lease.toMillis() + " ms"
				+ (this.sessionTimeout.isZero() ? ""
						: ((this.store == StoreKind.ETCD || this.store == StoreKind.ETCD_CLUSTER) ? ", instance lease "
								: ", session ")
								+ this.sessionTimeout.toMillis() + " ms")
				+ ", wait " + this.waitTime.toMillis() + " ms, load " + this.load().toSeconds() + " s, "
				+ this.faults.size() + " faults, seed " + this.seed + ", lock " + this.lockMode.name().toLowerCase()
				+ ", fence " + (this.fenceChecked ? "checked" : "UNCHECKED")
				+ ((this.replicasAcked > 0) ? ", min-replicas-acked " + this.replicasAcked : "");
	}

}
