package io.github.distlock.torture.run;

import java.util.ArrayList;
import java.util.List;

/**
 * The faults a run injects, each by PID (or, for connections, by client id or backend pid; for a cluster's slots
 * and roles, by the cluster's own commands) on this machine.
 */
public enum FaultKind {

	/** SIGSTOP a worker for longer than the lease, then SIGCONT: a GC pause that outlives the lock. */
	WORKER_PAUSE,

	/** SIGKILL a worker: its held locks must free themselves within one lease. */
	WORKER_KILL,

	/**
	 * Pin every thread of a worker onto one core shared with busy loops, then unpin it: a worker that still runs,
	 * but late, as on an oversubscribed host. Its renewals, releases and clocks all lag.
	 */
	WORKER_STARVE,

	/**
	 * SIGSTOP the lock server for longer than the lease, then SIGCONT: a stalled Redis. On a cluster, the master of a
	 * hot key's lock, for longer than the cluster's node timeout: its replica takes over meanwhile, and it comes back
	 * as a replica, as after a crash of a master with asynchronous replication. Behind Sentinel, the master past the
	 * sentinels' down-after time: they promote the replica, and the old master comes back as a stale master that
	 * takes the calls of clients not yet switched, until the sentinels make it a replica; what it granted meanwhile
	 * is gone then, and must be reported lost or fenced off. On a RedLock, two of its five masters: a lock granted by
	 * all five keeps its majority, one granted by a bare majority may not.
	 */
	REDIS_PAUSE,

	/**
	 * SIGKILL the lock server and start an empty one on the same port: a restart without persistence. On a RedLock,
	 * one of its five masters.
	 */
	REDIS_RESTART,

	/**
	 * {@code CLIENT KILL} every command connection of the workers, a few times in a row: a proxy or a firewall that
	 * drops idle and busy connections alike. The server and its locks stay; no lock may be lost to this alone.
	 */
	CLIENT_KILL_NORMAL,

	/** {@code CLIENT KILL} every subscription connection of the workers: release signals stop until resubscribed. */
	CLIENT_KILL_PUBSUB,

	/**
	 * SIGKILL the master of a hot key's lock on a cluster while the workers hold locks on every master: its replica
	 * takes over after the node timeout, and the killed node starts again, empty, as the new master's replica. The
	 * other masters' locks must lose nothing; the killed master's are kept on its replica or reported lost at their
	 * deadline, before anyone else gets them (what a renewal waiting on the dead master once kept from being said).
	 */
	REDIS_KILL,

	/**
	 * Move the hash slot of a hot key's lock to another master of the cluster while the workers lock, renew and
	 * release it: MOVED and ASK redirections, keys moved with their TTLs. The data stays, so no lock may be taken
	 * from its holder by it ({@code NOT_OWNED} would be a false alarm); a call refused meanwhile may leave a lock
	 * unconfirmed ({@code STORE_UNREACHABLE}).
	 */
	SLOT_MIGRATE,

	/**
	 * A coordinated failover ({@code CLUSTER FAILOVER}) of the master of a hot key's lock to its replica: the master
	 * holds writes until the replica has them all, so, as for a slot move, {@code NOT_OWNED} would be a false alarm.
	 */
	CLUSTER_FAILOVER,

	/**
	 * {@code SENTINEL FAILOVER}: the replica is promoted without waiting for the master's agreement, so a grant not
	 * yet replicated may be lost, and its loss reported ({@code NOT_OWNED} is justified).
	 */
	SENTINEL_FAILOVER,

	/**
	 * Take an exclusive lock on the JDBC engine's lock table for longer than the lease, then let go: a database that
	 * stops answering lock statements (a long migration, a stuck vacuum) while it still accepts connections.
	 */
	DB_STALL,

	/**
	 * {@code pg_terminate_backend} every session of the workers, a few times in a row: a failover proxy or an idle
	 * timeout that cuts pooled connections. The rows stay; no lock may be lost to this alone.
	 */
	DB_CONNECTION_KILL,

	/**
	 * SIGSTOP the ZooKeeper server for longer than the workers' session timeout (and so than the lease), then
	 * SIGCONT: a stalled ensemble. Every held lock goes unconfirmed past its lease, and must be reported lost; a
	 * session that went silent for its timeout ends when the server resumes (unless its client's reconnection is
	 * served first, which revalidates it), taking its nodes with it.
	 */
	ZK_PAUSE,

	/**
	 * SIGKILL the ZooKeeper server and start it again on the same port and the same data directory: a crash and
	 * restart of a server that persists its state. Sessions, nodes and the transaction ids go on, so no session ends
	 * and no lock is taken from its holder ({@code NOT_OWNED} would be a false alarm); only a lock whose lease ran
	 * out unconfirmed before its client reconnected may be given up ({@code STORE_UNREACHABLE}).
	 */
	ZK_RESTART,

	/**
	 * SIGSTOP the etcd server for longer than the workers' instance lease (and so than the lock lease), then SIGCONT:
	 * a stalled cluster. Every held lock goes unconfirmed past its lease, and must be reported lost; a lease whose
	 * time to live passed meanwhile ends when the server resumes (unless its keep-alive is served first), taking its
	 * keys with it.
	 */
	ETCD_PAUSE,

	/**
	 * SIGKILL the etcd server and start it again on the same ports and data directory: a crash and restart of a
	 * member that persists its state. Keys, leases and the revision go on (etcd gives every lease its full time to
	 * live again when it starts), so no lease ends and no lock is taken from its holder ({@code NOT_OWNED} would be a
	 * false alarm); only a lock whose lease ran out unconfirmed while the server was down may be given up
	 * ({@code STORE_UNREACHABLE}).
	 */
	ETCD_RESTART,

	/**
	 * SIGKILL the leader of an etcd cluster or a ZooKeeper ensemble of three while the workers hold locks, start it
	 * again on its ports and its data once the two others have elected a new leader, and wait until it follows that
	 * leader: a crashed leader that its supervisor starts again. A committed write is on a majority, so no key or
	 * node is lost; a new leader gives every session and lease its full time again, so none ends unless the ensemble
	 * stayed without a leader for longer than it. Only a lock whose lease ran out unconfirmed during the election
	 * may be given up ({@code STORE_UNREACHABLE}).
	 */
	LEADER_KILL;

	/** The faults the lock store of a run can undergo, besides those of the workers. */
	static List<FaultKind> forStore(StoreKind store) {
		List<FaultKind> kinds = new ArrayList<>(List.of(WORKER_PAUSE, WORKER_KILL, WORKER_STARVE));
		kinds.addAll(switch (store) {
			case REDIS -> List.of(REDIS_PAUSE, REDIS_RESTART, CLIENT_KILL_NORMAL, CLIENT_KILL_PUBSUB);
			// Not a restart: a cluster node restarted empty would also forget the cluster.
			case REDIS_CLUSTER -> List.of(REDIS_PAUSE, REDIS_KILL, CLIENT_KILL_NORMAL, CLIENT_KILL_PUBSUB, SLOT_MIGRATE,
					CLUSTER_FAILOVER);
			case REDIS_SENTINEL -> List.of(REDIS_PAUSE, CLIENT_KILL_NORMAL, CLIENT_KILL_PUBSUB, SENTINEL_FAILOVER);
			// Each striking a minority of the masters; no subscriptions to cut: a RedLock only ever tries once.
			case REDLOCK -> List.of(REDIS_PAUSE, REDIS_RESTART, CLIENT_KILL_NORMAL);
			case POSTGRESQL, MARIADB -> List.of(DB_STALL, DB_CONNECTION_KILL);
			case ZOOKEEPER -> List.of(ZK_PAUSE, ZK_RESTART);
			case ETCD -> List.of(ETCD_PAUSE, ETCD_RESTART);
			case ETCD_CLUSTER, ZOOKEEPER_ENSEMBLE -> List.of(LEADER_KILL);
		});
		return kinds;
	}

	String label() {
		return name().toLowerCase();
	}

}
