package io.github.distlock.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;

/**
 * Frees rows that an acquisition may hold without knowing it, off the caller's thread: after an attempt whose answer
 * was lost, or a release that found its lock past its lease. A database slow enough to lose one answer would make
 * the caller wait a second statement timeout.
 */
final class RowCleanup implements AutoCloseable {

	private final LockTableCalls calls;

	private final LockTableStatements statements;

	private final ExecutorService cleanup = Executors.newSingleThreadExecutor((task) -> {
		Thread thread = new Thread(task, "distlock-jdbc-cleanup");
		thread.setDaemon(true);
		return thread;
	});

	RowCleanup(LockTableCalls calls, LockTableStatements statements) {
		this.calls = calls;
		this.statements = statements;
	}

	/** Frees the lock's row if this holder has it; if the database cannot be reached, the row expires with its lease. */
	void freeRowOf(String lockId, String holder) {
		try {
			this.cleanup.execute(() -> {
				try (Connection connection = this.calls.connection();
						PreparedStatement statement = this.calls.prepare(connection, this.statements.releaseExpired,
								lockId, holder)) {
					statement.executeUpdate();
				}
				catch (SQLException ex) {
					// Unreachable: if the lock was taken, it expires with its lease.
				}
			});
		}
		catch (RejectedExecutionException ex) {
			// The engine is closed (a release after shutdown): the row expires with its lease.
		}
	}

	/** Frees what it was asked to free, then ends; a lock left behind expires with its lease anyway. */
	@Override
	public void close() {
		this.cleanup.shutdown();
	}

}
