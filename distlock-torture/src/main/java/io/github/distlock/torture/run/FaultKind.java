package io.github.distlock.torture.run;

/**
 * The faults a run injects, each by PID (or, for connections, by client id) on this machine.
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

	/** SIGSTOP the lock server for longer than the lease, then SIGCONT: a stalled Redis. */
	REDIS_PAUSE,

	/** SIGKILL the lock server and start an empty one on the same port: a restart without persistence. */
	REDIS_RESTART,

	/**
	 * {@code CLIENT KILL} every command connection of the workers, a few times in a row: a proxy or a firewall that
	 * drops idle and busy connections alike. The server and its locks stay; no lock may be lost to this alone.
	 */
	CLIENT_KILL_NORMAL,

	/** {@code CLIENT KILL} every subscription connection of the workers: release signals stop until resubscribed. */
	CLIENT_KILL_PUBSUB;

	String label() {
		return name().toLowerCase();
	}

}
