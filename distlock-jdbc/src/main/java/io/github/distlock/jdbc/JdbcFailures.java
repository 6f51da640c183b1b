package io.github.distlock.jdbc;

import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLTimeoutException;
import java.sql.SQLTransientConnectionException;

import org.jspecify.annotations.Nullable;

/**
 * Sorts database errors into the two kinds a lock caller must tell apart: a refusal that waiting will not cure (a
 * missing table or permission, a failed login, a read-only database), which fails a call at once, and an outage
 * (no connection, no answer in time), which a waiting caller waits out.
 */
final class JdbcFailures {

	private JdbcFailures() {
	}

	/**
	 * The database's words for a refusal, or null when the failure is an outage that may pass. Looks through the
	 * causes: a pool reports a failed login as "no connection available", with the database's answer beneath.
	 */
	static @Nullable String refusal(Throwable failure) {
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			if (cause instanceof SQLException sql && !isOutage(sql) && isRefusal(sql)) {
				return describe(sql);
			}
		}
		return null;
	}

	private static boolean isRefusal(SQLException sql) {
		String state = String.valueOf(sql.getSQLState());
		return state.startsWith("42") // no such table or column; no privilege
				|| state.startsWith("28") // failed authorisation
				|| state.startsWith("3D") || state.startsWith("3F") // no such database or schema
				|| state.equals("25006") // read-only transaction (a PostgreSQL standby)
				|| sql.getErrorCode() == 1290 // MariaDB/MySQL: running with --read-only
				|| sql.getErrorCode() == 1044 || sql.getErrorCode() == 1045 // MariaDB/MySQL: access denied
				|| sql.getErrorCode() == 1142 || sql.getErrorCode() == 1146; // command denied; no such table
	}

	/** Whether the failure is the database being unreachable or too slow, rather than an answer. */
	static boolean isOutage(SQLException sql) {
		String state = String.valueOf(sql.getSQLState());
		return sql instanceof SQLTimeoutException || sql instanceof SQLTransientConnectionException
				|| sql instanceof SQLNonTransientConnectionException || state.startsWith("08")
				|| state.equals("57014") // PostgreSQL: statement cancelled by its timeout
				|| state.equals("57P01") || state.equals("57P03"); // PostgreSQL: shutting down, not yet up
	}

	/**
	 * Whether the connection the statement ran on is dead (closed by the database or the network), so that the
	 * same statement may succeed on another. Timeouts are not: another connection would wait as long again.
	 */
	static boolean isBrokenConnection(SQLException sql) {
		String state = String.valueOf(sql.getSQLState());
		return sql instanceof SQLNonTransientConnectionException || state.startsWith("08")
				|| state.equals("57P01") || state.equals("57P02"); // PostgreSQL: session terminated, server crashed
	}

	/** The database's error in a line: SQL state and message, which name no password. */
	static String describe(SQLException sql) {
		String message = String.valueOf(sql.getMessage()).strip();
		int newline = message.indexOf('\n');
		if (newline > 0) {
			message = message.substring(0, newline).strip();
		}
		return message + " (SQL state " + sql.getSQLState() + ")";
	}

	static @Nullable SQLException sqlException(Throwable failure) {
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			if (cause instanceof SQLException sql) {
				return sql;
			}
		}
		return null;
	}

}
