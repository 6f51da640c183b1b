package io.github.distlock.torture.run;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.github.distlock.jdbc.JdbcLockEngine;
import io.github.distlock.test.PrivateDatabase;

/**
 * The JDBC engine's lock store for a run: a private database on the machine's PostgreSQL with distlock's lock table,
 * and the faults the run inflicts on it from outside, over its own connections. The workers' sessions are told
 * apart by their application name.
 */
final class PostgresLockStore implements AutoCloseable {

	/** Every worker session's application name starts so; the name of the worker follows. */
	static final String APPLICATION_PREFIX = "distlock-torture-";

	private static final String TABLE = "distlock_locks";

	private static final String NOW_MICROS = "(EXTRACT(EPOCH FROM clock_timestamp()) * 1000000)::BIGINT";

	private final PrivateDatabase database;

	PostgresLockStore() throws IOException {
		this.database = PrivateDatabase.postgresql();
		try (InputStream ddl = JdbcLockEngine.class.getResourceAsStream("schema-postgresql.sql")) {
			this.database.execute(new String(ddl.readAllBytes(), StandardCharsets.UTF_8));
		}
	}

	/**
	 * The Spring properties that point a worker's JDBC engine at the store; statements time out as Redis commands
	 * do in a Redis run, so the checker's bounds hold for both.
	 */
	List<String> workerArguments(String worker, Duration statementTimeout) {
		String url = this.database.url();
		String separator = url.contains("?") ? "&" : "?";
		return List.of("--distlock.backend=jdbc",
				"--spring.datasource.url=" + url + separator + "ApplicationName=" + APPLICATION_PREFIX + worker,
				"--spring.datasource.username=" + this.database.user(),
				// The worker's threads, the watchdog and the release listener, with room to spare.
				"--spring.datasource.hikari.maximum-pool-size=10",
				// Hikari's floor; a caller waits for a pooled connection no longer than for a statement.
				"--spring.datasource.hikari.connection-timeout=250",
				"--distlock.jdbc.statement-timeout=" + statementTimeout.toMillis() + "ms",
				"--distlock.jdbc.poll-interval=100ms");
	}

	/**
	 * Holds an exclusive lock on the lock table for the duration, then lets go: every lock statement of the workers
	 * waits meanwhile (up to its statement timeout), as on a database that stopped answering.
	 */
	void stall(Duration duration) throws InterruptedException {
		try (Connection connection = this.database.dataSource().getConnection();
				Statement statement = connection.createStatement()) {
			connection.setAutoCommit(false);
			statement.execute("LOCK TABLE " + TABLE + " IN ACCESS EXCLUSIVE MODE");
			try {
				Thread.sleep(duration.toMillis());
			}
			finally {
				connection.rollback();
			}
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Could not stall the lock table: " + ex.getMessage(), ex);
		}
	}

	/** Terminates every worker session; answers how many there were. */
	int killWorkerSessions() {
		try (Connection connection = this.database.dataSource().getConnection();
				Statement statement = connection.createStatement();
				ResultSet result = statement.executeQuery("SELECT count(pg_terminate_backend(pid)) FROM "
						+ "pg_stat_activity WHERE datname = current_database() AND application_name LIKE '" + APPLICATION_PREFIX
						+ "%'")) {
			result.next();
			return result.getInt(1);
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Could not terminate the workers' sessions: " + ex.getMessage(), ex);
		}
	}

	/** The keys still held: a holder set and a lease that has not run out by the database's clock. */
	List<String> heldKeys() {
		List<String> keys = new ArrayList<>();
		try (Connection connection = this.database.dataSource().getConnection();
				Statement statement = connection.createStatement();
				ResultSet result = statement.executeQuery("SELECT lock_name || ':' || lock_key FROM " + TABLE
						+ " WHERE holder IS NOT NULL AND expires_at > " + NOW_MICROS)) {
			while (result.next()) {
				keys.add(result.getString(1));
			}
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Could not read the lock table: " + ex.getMessage(), ex);
		}
		return keys;
	}

	@Override
	public void close() {
		this.database.close();
	}

}
