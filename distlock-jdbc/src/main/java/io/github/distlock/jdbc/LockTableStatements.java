package io.github.distlock.jdbc;

import java.util.Collections;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;

/**
 * The SQL the engine sends, written once for a table and a database. Every time in it is the database's own
 * ({@link LockTableDialect#now()}); a lock counts as held while its row names a holder and its expiry is in the
 * future, so a lapsed lease frees the lock without anyone deleting anything.
 */
final class LockTableStatements {

	private static final Pattern TABLE_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*(\\.[A-Za-z_][A-Za-z0-9_]*)?");

	final LockTableDialect dialect;

	final String table;

	final String acquire;

	/** The token of the row this holder holds now: how a database without RETURNING learns its token. */
	final String tokenOfHolder;

	/** Releases the lock if it is still this holder's; on PostgreSQL also announces it, answering a row if so. */
	final String release;

	/** Whether {@link #release} is a query (one row when released) rather than an update. */
	final boolean releaseIsQuery;

	/** Frees a row this holder still names after its lease ran out: the lock was lost, but the row is no use. */
	final String releaseExpired;

	final String verify;

	final String extend;

	final String releaseAfter;

	final String forceRelease;

	final String ping;

	/**
	 * @param releaseChannel the PostgreSQL channel a release announces the lock's id on, or null for none
	 */
	LockTableStatements(LockTableDialect dialect, String table, @Nullable String releaseChannel) {
		this.dialect = dialect;
		this.table = requireTableName(table);
		String now = dialect.now();
		String owned = " WHERE lock_id = ? AND holder = ? AND expires_at > " + now;
		this.acquire = dialect.acquire(table);
		this.tokenOfHolder = "SELECT token FROM " + table + " WHERE lock_id = ? AND holder = ?";
		String release = "UPDATE " + table + " SET holder = NULL, expires_at = " + now + owned;
		// One statement releases and announces, and announces only a release that happened.
		this.release = (releaseChannel != null) ? "WITH released AS (" + release + " RETURNING lock_id) "
				+ "SELECT pg_notify('" + releaseChannel + "', lock_id) FROM released" : release;
		this.releaseIsQuery = releaseChannel != null;
		this.releaseExpired = "UPDATE " + table + " SET holder = NULL WHERE lock_id = ? AND holder = ?";
		this.verify = "SELECT COUNT(*) FROM " + table + owned;
		this.extend = "UPDATE " + table + " SET expires_at = GREATEST(expires_at, " + now + " + ?)" + owned;
		// The holder stays: the row is this acquisition's until it expires, then anyone's.
		this.releaseAfter = "UPDATE " + table + " SET expires_at = " + now + " + ?" + owned;
		this.forceRelease = "UPDATE " + table + " SET holder = NULL, expires_at = " + now
				+ " WHERE lock_id = ? AND holder IS NOT NULL AND expires_at > " + now;
		this.ping = "SELECT COUNT(*) FROM " + table + " WHERE lock_id = ?";
	}

	/**
	 * Renews {@code count} locks by their ids and holders for one time to live: a row is renewed only while this
	 * holder owns it and its lease runs. (A row of another holder never carries one of these holder ids, which are
	 * never reused, so matching ids and holders as two lists is exact.)
	 */
	String renew(int count) {
		return "UPDATE " + this.table + " SET expires_at = " + this.dialect.now() + " + ? WHERE lock_id IN ("
				+ placeholders(count) + ") AND holder IN (" + placeholders(count) + ") AND expires_at > "
				+ this.dialect.now();
	}

	/** Which of {@code count} locks this engine still owns, by holder id: read when a renewal matched fewer rows. */
	String owned(int count) {
		return "SELECT holder FROM " + this.table + " WHERE lock_id IN (" + placeholders(count) + ") AND holder IN ("
				+ placeholders(count) + ") AND expires_at > " + this.dialect.now();
	}

	private static String placeholders(int count) {
		return String.join(", ", Collections.nCopies(count, "?"));
	}

	/** Table names go into SQL text, so only plain identifiers (optionally schema-qualified) are accepted. */
	static String requireTableName(String table) {
		if (table == null || !TABLE_NAME.matcher(table).matches()) {
			throw new IllegalArgumentException("The lock table name must be a plain SQL identifier, optionally "
					+ "qualified by a schema (letters, digits and '_'), not '" + table + "'");
		}
		return table;
	}

}
