package io.github.distlock.torture.check;

import java.time.Duration;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A fault as the injector carried it out.
 *
 * @param kind {@code worker_pause}, {@code worker_kill}, {@code worker_starve}, {@code redis_pause}, {@code redis_kill},
 * {@code redis_restart}, {@code client_kill_normal}, {@code client_kill_pubsub}, {@code db_stall},
 * {@code db_connection_kill}, {@code zk_pause}, {@code zk_restart}, {@code etcd_pause}, {@code etcd_restart},
 * {@code leader_kill} (of an etcd cluster or a ZooKeeper ensemble), {@code slot_migrate} or {@code cluster_failover}
 * @param target the worker's name, {@code redis}, {@code database}, {@code zookeeper} or {@code etcd} for the lock
 * store, or
 * {@code workers} for connection kills (every worker's)
 * @param pid the process signalled (for connection kills, the lock server's)
 * @param startNanos when it began
 * @param endNanos when it was over (the process resumed or unpinned, the server answered again, the last round of
 * kills was sent)
 * @param detail what the fault did beyond its kind, such as how many connections it killed; empty if nothing
 */
public record FaultRecord(String kind, String target, long pid, long startNanos, long endNanos, String detail) {

	/** How a leader kill's detail says how long the ensemble had no leader: {@code ...-elected-after-612-ms-...}. */
	private static final Pattern ELECTED_AFTER = Pattern.compile("-elected-after-(\\d+)-ms");

	/** A fault of the lock store itself (Redis, the database, ZooKeeper or etcd), which may take any holder's lock. */
	/**
	 * A fault of the lock store, which can cost a live holder its lock. So can one that strikes a minority of a
	 * RedLock's masters (target {@code redlock-minority}): a lock granted by a bare majority (three of five, while
	 * another holder's parts were still being released elsewhere) keeps no majority when one of its masters stops.
	 */
	boolean isStoreFault() {
		return "redis".equals(this.target) || "database".equals(this.target) || "zookeeper".equals(this.target)
				|| "etcd".equals(this.target) || "redlock-minority".equals(this.target);
	}

	/**
	 * Whether this fault of the lock store can cost a live holder its lock for the reason reported. Any of them can
	 * leave a lock unconfirmed past its lease ({@code STORE_UNREACHABLE}); all but one can also take it in the store
	 * ({@code NOT_OWNED}: an expired key, a Redis restarted empty, a ZooKeeper session ended by a stalled server). The
	 * exceptions are a ZooKeeper server and an etcd restarted on their own data: they bring back every session and
	 * node, every lease and key, so a lock they are said to have taken was not taken; so do a cluster's slot moved to
	 * another master and its coordinated failover. A leader killed in an etcd cluster or a ZooKeeper ensemble takes
	 * nothing either, unless the ensemble stayed without a leader for longer than a session (see
	 * {@link #outlastedBySessions}).
	 * @param sessionTimeout the workers' ZooKeeper session timeout or etcd instance lease
	 */
	boolean canCostALockAs(String reason, Duration sessionTimeout) {
		if (isRestartOnItsData() || keepsEveryKey()
				|| (isLeaderKill() && outlastedBySessions(sessionTimeout))) {
			return "STORE_UNREACHABLE".equals(reason);
		}
		return "STORE_UNREACHABLE".equals(reason) || "NOT_OWNED".equals(reason);
	}

	/** The leader of an etcd cluster or a ZooKeeper ensemble killed, and started again once another was elected. */
	boolean isLeaderKill() {
		return "leader_kill".equals(this.kind);
	}

	/**
	 * Whether a leader kill left the ensemble without a leader for less time than the workers' sessions (etcd: their
	 * instance lease) last: then no session or lease ended, since only a leader ends them and a new leader gives each
	 * its full time again. A kill whose record does not say (none written so) is taken as outlasted, the strict
	 * reading.
	 */
	boolean outlastedBySessions(Duration sessionTimeout) {
		OptionalLong leaderless = leaderlessNanos();
		return leaderless.isEmpty() || leaderless.getAsLong() < sessionTimeout.toNanos();
	}

	/** How long a leader kill left the ensemble without a leader, as its detail says. */
	OptionalLong leaderlessNanos() {
		Matcher matcher = ELECTED_AFTER.matcher(this.detail);
		return matcher.find() ? OptionalLong.of(TimeUnit.MILLISECONDS.toNanos(Long.parseLong(matcher.group(1))))
				: OptionalLong.empty();
	}

	/**
	 * A stop or an outage of a lock server whose engine waits for it: the ZooKeeper engine sets no time limit on a
	 * request (nor does ZooKeeper's client, by default), so its calls wait while the server is stopped or down, and
	 * then for their client to reconnect; in an ensemble, while the servers elect a new leader (they serve no one
	 * meanwhile). The Redis, JDBC and etcd engines give up on a command, statement or call after its timeout, and are
	 * held to that.
	 */
	boolean holdsUpCalls() {
		return "zk_pause".equals(this.kind) || "zk_restart".equals(this.kind)
				|| (isLeaderKill() && "zookeeper".equals(this.target));
	}

	/**
	 * A fault that can drop locks from the store while their holders' leases still run: a Redis restarted empty, a
	 * master killed or replaced by a replica that may lack its last writes, a stale master whose grants are undone.
	 */
	boolean dropsHeldLocks() {
		return "redis_restart".equals(this.kind) || "redis_kill".equals(this.kind) || leavesAStaleMaster();
	}

	/**
	 * A restart of the lock server (Redis empty, ZooKeeper or etcd on its data), or of an ensemble's leader: tokens
	 * must go on growing across it.
	 */
	boolean isRestart() {
		return "redis_restart".equals(this.kind) || isRestartOnItsData() || isLeaderKill();
	}

	private boolean isRestartOnItsData() {
		return "zk_restart".equals(this.kind) || "etcd_restart".equals(this.kind);
	}

	/** A change of a cluster's slots or roles that keeps every key: a slot moved, a coordinated failover. */
	private boolean keepsEveryKey() {
		return "slot_migrate".equals(this.kind) || "cluster_failover".equals(this.kind);
	}

	/**
	 * A failover that leaves a stale master behind for a while: a master the sentinels or the cluster replaced while
	 * it was stopped (it comes back believing it is master), or one {@code SENTINEL FAILOVER} demoted without its
	 * agreement (it hears of it only at the sentinels' next look). Clients not yet switched lock there, beside the
	 * holders on the new master.
	 */
	boolean leavesAStaleMaster() {
		return "sentinel_failover".equals(this.kind)
				|| ("redis_pause".equals(this.kind) && "master-paused-replica-promoted".equals(this.detail));
	}

	/** A connection kill: the server and its data stay, so it can take no lock from anyone by itself. */
	public boolean isConnectionKill() {
		return this.kind.startsWith("client_kill") || "db_connection_kill".equals(this.kind);
	}

	boolean strikes(String worker, String faultKind) {
		return this.kind.equals(faultKind) && this.target.equals(worker);
	}

	/** Whether the fault was under way at some moment between the two times. */
	boolean overlaps(long fromNanos, long toNanos) {
		return this.startNanos - toNanos <= 0 && fromNanos - this.endNanos <= 0;
	}

	@Override
	public String toString() {
		return this.kind + " " + this.target + " (pid " + this.pid + ")" + (this.detail.isEmpty() ? ""
				: " " + this.detail);
	}

}
