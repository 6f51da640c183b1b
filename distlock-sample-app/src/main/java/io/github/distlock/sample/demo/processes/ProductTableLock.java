package io.github.distlock.sample.demo.processes;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

import javax.sql.DataSource;

/**
 * The product table locked in {@code ACCESS EXCLUSIVE} mode by a transaction of the demo's own, so that every other
 * session's first statement on it, a plain read included, waits until the lock is closed. The frozen-holder scenario
 * uses it to stop a purchase at a known point: inside its distributed lock, before its write.
 */
final class ProductTableLock implements AutoCloseable {

	private final Connection connection;

	private ProductTableLock(Connection connection) {
		this.connection = connection;
	}

	static ProductTableLock take(DataSource dataSource) {
		Connection connection = null;
		try {
			connection = dataSource.getConnection();
			connection.setAutoCommit(false);
			try (Statement statement = connection.createStatement()) {
				statement.execute("LOCK TABLE product IN ACCESS EXCLUSIVE MODE");
			}
			return new ProductTableLock(connection);
		}
		catch (SQLException ex) {
			closeQuietly(connection);
			throw new IllegalStateException("Could not lock the product table: " + ex.getMessage(), ex);
		}
	}

	/** Whether another session is waiting for this lock. */
	boolean hasWaiters() {
		try (Statement statement = this.connection.createStatement();
				ResultSet waiting = statement.executeQuery(
						"SELECT count(*) FROM pg_locks WHERE relation = 'product'::regclass AND NOT granted")) {
			waiting.next();
			return waiting.getInt(1) > 0;
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Could not read pg_locks: " + ex.getMessage(), ex);
		}
	}

	/** Ends the transaction, and with it the lock. */
	@Override
	public void close() {
		try {
			this.connection.rollback();
		}
		catch (SQLException ex) {
			// Closing the connection ends the transaction too.
		}
		closeQuietly(this.connection);
	}

	private static void closeQuietly(Connection connection) {
		if (connection == null) {
			return;
		}
		try {
			connection.close();
		}
		catch (SQLException ex) {
			// Gone already.
		}
	}

}
