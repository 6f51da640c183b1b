package io.github.distlock.torture.run;

/**
 * The faults a run injects, each by PID on this machine.
 */
public enum FaultKind {

	/** SIGSTOP a worker for longer than the lease, then SIGCONT: a GC pause that outlives the lock. */
	WORKER_PAUSE,

	/** SIGKILL a worker: its held locks must free themselves within one lease. */
	WORKER_KILL,

	/** SIGSTOP the lock server for longer than the lease, then SIGCONT: a stalled Redis. */
	REDIS_PAUSE,

	/** SIGKILL the lock server and start an empty one on the same port: a restart without persistence. */
	REDIS_RESTART;

	String label() {
		return name().toLowerCase();
	}

}
