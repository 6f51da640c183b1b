package io.github.distlock.torture.run;

/**
 * A lock store replicated over several members, one of which leads (etcd's Raft leader, ZooKeeper's ZAB leader):
 * what the {@code leader_kill} fault needs of it.
 */
interface LeaderEnsemble {

	/**
	 * Finds the member leading now, SIGKILLs it, waits until the others have elected a new leader, starts the killed
	 * member again on its ports and its data directory, and returns once it is back in the ensemble, following the
	 * new leader. Every step is a condition polled with a deadline; none is a guessed sleep.
	 */
	LeaderKill killLeader() throws InterruptedException;

	/** The fault record's target: {@code etcd} or {@code zookeeper}, which the checker counts as the lock store. */
	String faultTarget();

}
