package io.github.distlock.torture.run;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import javax.sql.DataSource;

/**
 * The JDBC engine's lock store for a run: a private database with distlock's lock table, the properties that point
 * a worker at it, and the faults the run inflicts on it from outside, over the runner's own connections.
 */
interface DatabaseLockStore extends AutoCloseable {

	/** A private database on the machine's server of this kind, with the lock table created. */
	static DatabaseLockStore open(StoreKind store) {
		return switch (store) {
			case POSTGRESQL -> new PostgresLockStore();
			case MARIADB -> new MariaDbLockStore();
			case REDIS, REDIS_CLUSTER, REDIS_SENTINEL, REDLOCK, ZOOKEEPER, ETCD, ETCD_CLUSTER, ZOOKEEPER_ENSEMBLE ->
				throw new IllegalArgumentException(store + " is no database lock store");
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

	/** The JDBC engine's properties for a worker: the data source, a small pool, and the engine's timeouts. */
	static List<String> engineArguments(String url, String user, Duration statementTimeout) {
		return List.of("--distlock.backend=jdbc", "--spring.datasource.url=" + url,
				"--spring.datasource.username=" + user,
				// The worker's threads, the watchdog and the release listener, with room to spare.
				"--spring.datasource.hikari.maximum-pool-size=10",
				// Hikari's floor; a caller waits for a pooled connection no longer than for a statement.
				"--spring.datasource.hikari.connection-timeout=250",
				"--distlock.jdbc.statement-timeout=" + statementTimeout.toMillis() + "ms",
				"--distlock.jdbc.poll-interval=100ms");
	}

	/** Runs a query on the store's database and answers its first column, row by row. */
	static List<String> column(DataSource dataSource, String sql) {
		List<String> values = new ArrayList<>();
		try (Connection connection = dataSource.getConnection();
				Statement statement = connection.createStatement();
				ResultSet result = statement.executeQuery(sql)) {
			while (result.next()) {
				values.add(result.getString(1));
			}
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Could not read the lock table: " + ex.getMessage(), ex);
		}
		return values;
	}

	@Override
	void close();

}
