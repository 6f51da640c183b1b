package io.github.distlock.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Locale;

/**
 * What differs between the databases the lock table lives in: how each reads its own clock, and how each inserts a
 * lock or takes over an expired one in a single statement. Everything else is plain SQL the three share.
 * <p>
 * Time is the database's, as microseconds since the epoch in a {@code BIGINT}: no column type, session time zone or
 * daylight-saving change can move a lease, and no application clock is ever compared with it.
 */
enum LockTableDialect {

	/**
	 * {@code INSERT ... ON CONFLICT DO UPDATE ... WHERE ... RETURNING}: one statement that inserts, takes over an
	 * expired row, or does nothing, and says which.
	 */
	POSTGRESQL("PostgreSQL", "(EXTRACT(EPOCH FROM statement_timestamp()) * 1000000)::BIGINT", true) {

		@Override
		String acquire(String table) {
			return "INSERT INTO " + table + " AS l (lock_id, lock_name, lock_key, holder, token, expires_at) "
					+ "VALUES (?, ?, ?, ?, " + now() + ", " + now() + " + ?) "
					+ "ON CONFLICT (lock_id) DO UPDATE SET holder = EXCLUDED.holder, "
					+ "token = GREATEST(l.token + 1, " + now() + "), expires_at = EXCLUDED.expires_at "
					+ "WHERE l.holder IS NULL OR l.expires_at <= " + now() + " RETURNING token";
		}

		@Override
		Object[] acquireParameters(String lockId, String name, String key, String holder, long ttlMicros) {
			return new Object[] { lockId, name, key, holder, ttlMicros };
		}

	},

	/**
	 * {@code INSERT ... ON DUPLICATE KEY UPDATE}, whose assignments run left to right: the holder is taken over
	 * first, and the token and expiry follow only when the holder is now this acquisition's (holder ids are never
	 * reused). MariaDB has no {@code RETURNING} here, so the token is read back by the new holder id.
	 */
	MARIADB("MariaDB", "TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP(6))", false) {

		@Override
		String acquire(String table) {
			return "INSERT INTO " + table + " (lock_id, lock_name, lock_key, holder, token, expires_at) "
					+ "VALUES (?, ?, ?, ?, " + now() + ", " + now() + " + ?) ON DUPLICATE KEY UPDATE "
					+ "holder = IF(holder IS NULL OR expires_at <= " + now() + ", VALUES(holder), holder), "
					+ "token = IF(holder = VALUES(holder), GREATEST(token + 1, " + now() + "), token), "
					+ "expires_at = IF(holder = VALUES(holder), VALUES(expires_at), expires_at)";
		}

		@Override
		Object[] acquireParameters(String lockId, String name, String key, String holder, long ttlMicros) {
			return new Object[] { lockId, name, key, holder, ttlMicros };
		}

	},

	/**
	 * The SQL standard's {@code MERGE}. Two acquisitions inserting the same new lock at once: one gets a duplicate
	 * key error, which counts as "held by another".
	 */
	H2("H2", "DATEDIFF(MICROSECOND, TIMESTAMP WITH TIME ZONE '1970-01-01 00:00:00+00', CURRENT_TIMESTAMP)", false) {

		@Override
		String acquire(String table) {
			return "MERGE INTO " + table + " l USING (SELECT CAST(? AS VARCHAR(64)) lock_id) s "
					+ "ON l.lock_id = s.lock_id "
					+ "WHEN MATCHED AND (l.holder IS NULL OR l.expires_at <= " + now() + ") THEN UPDATE SET "
					+ "holder = CAST(? AS VARCHAR(64)), token = GREATEST(l.token + 1, " + now() + "), "
					+ "expires_at = " + now() + " + CAST(? AS BIGINT) "
					+ "WHEN NOT MATCHED THEN INSERT (lock_id, lock_name, lock_key, holder, token, expires_at) "
					+ "VALUES (s.lock_id, CAST(? AS VARCHAR(1024)), CAST(? AS VARCHAR(1024)), CAST(? AS VARCHAR(64)), "
					+ now() + ", " + now() + " + CAST(? AS BIGINT))";
		}

		@Override
		Object[] acquireParameters(String lockId, String name, String key, String holder, long ttlMicros) {
			return new Object[] { lockId, holder, ttlMicros, name, key, holder, ttlMicros };
		}

	};

	private final String product;

	private final String now;

	private final boolean acquireReturnsToken;

	LockTableDialect(String product, String now, boolean acquireReturnsToken) {
		this.product = product;
		this.now = now;
		this.acquireReturnsToken = acquireReturnsToken;
	}

	/** The database's name, as operators know it. */
	String product() {
		return this.product;
	}

	/** The database's current time in microseconds since the epoch, as an SQL expression. */
	String now() {
		return this.now;
	}

	/** Whether {@link #acquire} answers with the token (else the caller reads it back by holder). */
	boolean acquireReturnsToken() {
		return this.acquireReturnsToken;
	}

	/**
	 * Inserts the lock, or takes over its row when it is free or expired, in one statement; the token grows by one
	 * from the row's last, and never falls below the database clock (so it keeps growing if a free row is deleted).
	 */
	abstract String acquire(String table);

	/** The parameters of {@link #acquire}, in its order. */
	abstract Object[] acquireParameters(String lockId, String name, String key, String holder, long ttlMicros);

	/** The DDL resource of this database's lock table. */
	String schemaResource() {
		return "schema-" + name().toLowerCase(Locale.ROOT) + ".sql";
	}

	/**
	 * The dialect of the database behind a connection.
	 * @throws IllegalStateException for a database distlock has no dialect for
	 */
	static LockTableDialect of(Connection connection) throws SQLException {
		String product = connection.getMetaData().getDatabaseProductName();
		String lower = product.toLowerCase(Locale.ROOT);
		if (lower.contains("postgresql")) {
			return POSTGRESQL;
		}
		if (lower.contains("mariadb") || lower.contains("mysql")) {
			return MARIADB;
		}
		if (lower.equals("h2")) {
			return H2;
		}
		throw new IllegalStateException("distlock's JDBC engine supports PostgreSQL, MySQL/MariaDB and H2, not "
				+ product);
	}

}
