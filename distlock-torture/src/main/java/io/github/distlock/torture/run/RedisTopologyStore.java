package io.github.distlock.torture.run;

import java.time.Duration;
import java.util.List;
import java.util.Random;

/**
 * A Redis lock store of several servers the run starts (a cluster, or a master and replica behind Sentinel): what
 * points a worker at it, the faults that strike its masters, and what the workers still hold in it.
 */
interface RedisTopologyStore extends AutoCloseable {

	/** The Spring properties that point a worker's Redis engine at the topology. */
	List<String> workerArguments(String name, Duration commandTimeout);

	/**
	 * SIGSTOP a master for at least {@code duration} and until a replica has replaced it, then SIGCONT; returns once
	 * the old master follows the new one.
	 * @return the pid stopped
	 */
	long pauseMaster(Random random, Duration duration) throws InterruptedException;

	/**
	 * A failover the topology's own tools make (a coordinated {@code CLUSTER FAILOVER}, or {@code SENTINEL
	 * FAILOVER}); returns once the roles have settled.
	 * @return what moved, for the record
	 */
	String failover(Random random);

	/** Kills every worker connection of the type on every master; returns how many. */
	int killConnections(String type);

	/** Lock keys and waiter queues on the masters, not the token floors. */
	List<String> heldKeys();

	/** Whom a fault of the store's servers strikes, for the record: {@code redis}, whose faults can cost a lock. */
	default String faultTarget() {
		return "redis";
	}

	/** What a {@link #pauseMaster} did, for the record. */
	default String pauseDetail() {
		return "master-paused-replica-promoted";
	}

	/** Whether the store records its servers' keyspace events itself (else the run writes an empty record). */
	default boolean recordsKeyspace() {
		return true;
	}

	@Override
	void close();

}
