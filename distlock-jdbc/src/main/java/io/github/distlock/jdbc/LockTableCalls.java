package io.github.distlock.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;

import javax.sql.DataSource;

/**
 * How the engine's statements reach the database: each on a connection borrowed from the application's pool, in
 * auto-commit, bounded by the statement timeout, and tried again on another connection when the database had closed
 * the one it got.
 */
final class LockTableCalls {

	/**
	 * How many pooled connections a statement tries when the database has closed them: a few, since each dead one
	 * fails at once and is dropped by the pool, and the watchdog's next tick tries as many again.
	 */
	private static final int BROKEN_CONNECTION_ATTEMPTS = 5;

	/** Work on one pooled connection. */
	@FunctionalInterface
	interface SqlWork<T> {

		T run(Connection connection) throws SQLException;

	}

	private final DataSource dataSource;

	private final int statementTimeoutSeconds;

	/** @param statementTimeoutSeconds the longest one statement may take, in JDBC's whole seconds */
	LockTableCalls(DataSource dataSource, int statementTimeoutSeconds) {
		this.dataSource = dataSource;
		this.statementTimeoutSeconds = statementTimeoutSeconds;
	}

	int statementTimeoutSeconds() {
		return this.statementTimeoutSeconds;
	}

	/**
	 * Runs work on a pooled connection, and again on another when the database had closed that one (a failover, a
	 * restart, an operator ending sessions): the pool hands out connections it has not checked for a while, so after
	 * such an event several may be dead, and one dead connection must not cost a renewal, hence a lock. Only for
	 * statements that may run twice; a failure to get a connection, or a timeout, is not retried.
	 * @param onRetry told before each further try
	 */
	<T> T onConnection(SqlWork<T> work, Runnable onRetry) throws SQLException {
		for (int attempt = 1;; attempt++) {
			Connection connection = connection();
			try (connection) {
				return work.run(connection);
			}
			catch (SQLException ex) {
				if (attempt == BROKEN_CONNECTION_ATTEMPTS || !JdbcFailures.isBrokenConnection(ex)) {
					throw ex;
				}
				onRetry.run();
			}
		}
	}

	<T> T onConnection(SqlWork<T> work) throws SQLException {
		return onConnection(work, () -> {
		});
	}

	/** One statement that changes rows, on a connection of its own; the number of rows it changed. */
	int update(String sql, Object... parameters) throws SQLException {
		return onConnection((connection) -> {
			try (PreparedStatement statement = prepare(connection, sql, parameters)) {
				return statement.executeUpdate();
			}
		});
	}

	/** A pooled connection in auto-commit, which the caller closes. */
	Connection connection() throws SQLException {
		Connection connection = this.dataSource.getConnection();
		try {
			if (!connection.getAutoCommit()) {
				// A lock must be visible to other instances the moment it is taken, whatever the pool's default.
				connection.setAutoCommit(true);
			}
			return connection;
		}
		catch (SQLException ex) {
			connection.close();
			throw ex;
		}
	}

	/** The statement with the statement timeout and its parameters, each a {@code Long} or a {@code String}. */
	PreparedStatement prepare(Connection connection, String sql, Object... parameters) throws SQLException {
		PreparedStatement statement = connection.prepareStatement(sql);
		try {
			statement.setQueryTimeout(this.statementTimeoutSeconds);
			for (int i = 0; i < parameters.length; i++) {
				if (parameters[i] instanceof Long value) {
					statement.setLong(i + 1, value);
				}
				else {
					statement.setString(i + 1, (String) parameters[i]);
				}
			}
			return statement;
		}
		catch (SQLException ex) {
			statement.close();
			throw ex;
		}
	}

}
