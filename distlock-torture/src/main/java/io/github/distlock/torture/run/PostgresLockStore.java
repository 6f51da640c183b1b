package io.github.distlock.torture.run;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;

import io.github.distlock.jdbc.JdbcLockEngine;
import io.github.distlock.fixtures.jdbc.PrivateDatabase;

/**
 * A private database on the machine's PostgreSQL. The workers' sessions are told apart by their application name;
 * a stall is {@code LOCK TABLE ... ACCESS EXCLUSIVE}, a kill {@code pg_terminate_backend}.
 */
final class PostgresLockStore implements DatabaseLockStore {

	/** Every worker session's application name starts so; the name of the worker follows. */
	static final String APPLICATION_PREFIX = "distlock-torture-";

	private static final String TABLE = "distlock_locks";

	private static final String NOW_MICROS = "(EXTRACT(EPOCH FROM clock_timestamp()) * 1000000)::BIGINT";

	private final PrivateDatabase database;

	PostgresLockStore() {
		this.database = PrivateDatabase.postgresql();
		this.database.execute(schema("schema-postgresql.sql"));
	}

	/** distlock's DDL for the database, as shipped with the engine. */
	static String schema(String resource) {
		try (InputStream ddl = JdbcLockEngine.class.getResourceAsStream(resource)) {
			return new String(ddl.readAllBytes(), StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	@Override
	public List<String> workerArguments(String worker, Duration statementTimeout) {
		String url = this.database.url();
		String separator = url.contains("?") ? "&" : "?";
		return DatabaseLockStore.engineArguments(url + separator + "ApplicationName=" + APPLICATION_PREFIX + worker,
				this.database.user(), statementTimeout);
	}

	@Override
	public void stall(Duration duration) throws InterruptedException {
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

	@Override
	public int killWorkerSessions() {
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

	@Override
	public List<String> heldKeys() {
		return DatabaseLockStore.column(this.database.dataSource(), "SELECT lock_name || ':' || lock_key FROM "
				+ TABLE + " WHERE holder IS NOT NULL AND expires_at > " + NOW_MICROS);
	}

	@Override
	public void close() {
		this.database.close();
	}

}
