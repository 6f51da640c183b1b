package io.github.distlock.jdbc;

import java.sql.SQLException;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import io.github.distlock.LockStoreException;
import io.github.distlock.engine.DisplayedKey;
import io.github.distlock.engine.LockEngineStatistics;

/**
 * What the database refuses distlock (no table, no permission, a read-only database), which waiting will not cure:
 * the error a lock call ends with, the one warning refused renewals log, the advice both give, and the refusal that
 * stands until a statement succeeds, for health.
 */
final class TableRefusals {

	/** The engine's own category, where an operator looks for what the engine says. */
	private static final Log logger = LogFactory.getLog(JdbcLockEngine.class);

	private final LockTableStatements statements;

	private final LockEngineStatistics statistics;

	/** The database's words for the last lock statement it refused, until one succeeds. */
	private volatile @Nullable String refusal;

	TableRefusals(LockTableStatements statements, LockEngineStatistics statistics) {
		this.statements = statements;
		this.statistics = statistics;
	}

	/** A lock statement succeeded: nothing is refused any more. */
	void clear() {
		this.refusal = null;
	}

	/** A refusal ends the call at once with the database's words and what to do; anything else returns. */
	void throwIfRefused(SQLException ex, String action, String name, String key) {
		String refused = JdbcFailures.refusal(ex);
		if (refused == null) {
			return;
		}
		this.statistics.countRefusal();
		this.refusal = refused;
		throw new LockStoreException(name, key, ex.getSQLState(), this.statements.dialect.product() + " refused to "
				+ action + " lock '" + name + "' for key '" + DisplayedKey.of(key) + "': " + refused + ". "
				+ advice(ex), ex);
	}

	/** Says once per refusal (until a statement succeeds) that the database refuses to renew: locks will be lost. */
	void renewalFailed(SQLException failure, int locks) {
		String refused = JdbcFailures.refusal(failure);
		if (refused == null) {
			return;
		}
		if (!refused.equals(this.refusal)) {
			this.statistics.countRefusal();
			logger.warn(this.statements.dialect.product() + " refused to renew " + locks + " held lock(s): " + refused
					+ ". " + advice(failure) + " Held locks will be lost when their leases run out.");
		}
		this.refusal = refused;
	}

	/** What to do about a refusal: create the missing table, or grant the user what it lacks. */
	String advice(Throwable failure) {
		SQLException sql = JdbcFailures.sqlException(failure);
		String state = (sql != null) ? String.valueOf(sql.getSQLState()) : "";
		// PostgreSQL says 42P01, MariaDB and H2 42S02: no such table.
		if (state.equals("42P01") || state.equals("42S02")) {
			return "Create the table with distlock-jdbc's DDL (io/github/distlock/jdbc/"
					+ this.statements.dialect.schemaResource() + " in its jar, or JdbcLockEngine#schema()), or set "
					+ "distlock.jdbc.initialize-schema=true.";
		}
		return "Grant the application's database user SELECT, INSERT and UPDATE on '" + this.statements.table + "'.";
	}

	/** The refusal that stands, for health, or null. */
	@Nullable String standing() {
		String refused = this.refusal;
		return (refused != null) ? this.statements.dialect.product() + " refuses distlock's lock statements: "
				+ refused : null;
	}

}
