package io.github.distlock.torture.check;

import java.time.Duration;
import java.util.List;

/**
 * The settings a run was made with, as far as the checker needs them.
 *
 * @param lease the lock lease
 * @param waitTime the wait time of every call
 * @param commandTimeout the Redis command timeout of the workers (their statement timeout, their ZooKeeper
 * connection timeout)
 * @param sessionTimeout the workers' ZooKeeper session timeout; zero for the stores without sessions
 * @param longestHold the longest hold a section asks for
 * @param loadStartNanos when the load began
 * @param loadEndNanos when the workers stopped starting calls
 * @param workers the names of the workers started
 * @param description a one-line summary for the report
 * @param replicasAcked how many replicas had to acknowledge a new lock ({@code distlock.redis.min-replicas-acked})
 * @param replicaAckTimeout how long a grant waited for them ({@code distlock.redis.replica-ack-timeout})
 * @param lockName the name of the workers' lock: {@code torture}, or the leader election's lock
 */
public record RunParameters(Duration lease, Duration waitTime, Duration commandTimeout, Duration sessionTimeout,
		Duration longestHold,
		long loadStartNanos, long loadEndNanos, List<String> workers, String description, int replicasAcked,
		Duration replicaAckTimeout, String lockName) {

	/** Where the workers' lock for a key lives in Redis. */
	public String redisKeyOf(String key) {
		return RunRecordsReader.redisKeyOf(this.lockName, key);
	}

	/**
	 * How long after a fault its effects may still show: a section that began before it runs on for up to the
	 * longest hold, and an expiring lease takes one more lease; a second for the scheduling of a busy machine.
	 */
	public long settleNanos() {
		return this.longestHold.plus(this.lease).plusSeconds(1).toNanos();
	}

	/**
	 * The longest the store may keep the lock of a killed holder: a lease, or the session timeout where that is
	 * longer (ZooKeeper keeps a dead client's nodes until its session expires); a second for scheduling.
	 */
	public long deadHolderBoundNanos() {
		Duration kept = (this.sessionTimeout.compareTo(this.lease) > 0) ? this.sessionTimeout : this.lease;
		return kept.plusSeconds(1).toNanos();
	}

	/**
	 * The longest a call may wait for a lock: its wait time, one command timeout, and 400 ms for thread scheduling;
	 * with replica acknowledgement also the wait for the replicas after the grant, and one more command timeout for
	 * letting go of a grant they did not confirm.
	 */
	public long waitBoundNanos() {
		Duration acknowledgement = (this.replicasAcked > 0) ? this.replicaAckTimeout.plus(this.commandTimeout)
				: Duration.ZERO;
		return this.waitTime.plus(this.commandTimeout).plus(acknowledgement).plusMillis(400).toNanos();
	}

	/** The longest a release may take: one command timeout (two after a restart), and a second of scheduling. */
	public long releaseBoundNanos() {
		return this.commandTimeout.multipliedBy(2).plusSeconds(1).toNanos();
	}

}
