package io.github.distlock.torture.run;

import java.time.Duration;
import java.util.List;

/**
 * The JDBC engine's lock store for a run: a private database with distlock's lock table, the properties that point
 * a worker at it, and the faults the run inflicts on it from outside, over the runner's own connections.
 */
interface DatabaseLockStore extends AutoCloseable {

	/** A private database on the machine's server of this kind, with the lock table created. */
	static DatabaseLockStore open(LockStore store) {
		return switch (store) {
			case POSTGRESQL -> new PostgresLockStore();
			case MARIADB -> new MariaDbLockStore();
			case REDIS -> throw new IllegalArgumentException("Redis is no database lock store");
		};
	}

	/**
	 * The Spring properties that point a worker's JDBC engine at the store; statements time out as Redis commands
	 * do in a Redis run, so the checker's bounds hold for both.
	 */
	List<String> workerArguments(String worker, Duration statementTimeout);

	/**
	 * Locks the lock table away from every other session for the duration, then lets go: every lock statement of
	 * the workers waits meanwhile (up to its statement timeout), as on a database that stopped answering.
	 */
	void stall(Duration duration) throws InterruptedException;

	/** Ends every session of the workers at once; answers how many there were. */
	int killWorkerSessions();

	/** The locks still held: a holder set and a lease that has not run out by the database's clock. */
	List<String> heldKeys();

	@Override
	void close();

}
