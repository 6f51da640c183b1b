package io.github.distlock.jdbc;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

import javax.sql.DataSource;

import io.github.distlock.LockStoreConnectionException;

/**
 * The lock table's DDL, shipped per database in this module's jar ({@code schema-<database>.sql}), and its opt-in
 * creation.
 */
final class LockTableSchema {

	private LockTableSchema() {
	}

	/** The DDL for the database, naming the given table. */
	static String ddl(LockTableDialect dialect, String table) {
		String resource = dialect.schemaResource();
		try (InputStream in = LockTableSchema.class.getResourceAsStream(resource)) {
			if (in == null) {
				throw new IllegalStateException("distlock-jdbc's jar lacks " + resource);
			}
			String ddl = new String(in.readAllBytes(), StandardCharsets.UTF_8);
			return ddl.replace("CREATE TABLE IF NOT EXISTS " + JdbcLockEngine.DEFAULT_TABLE + " ",
					"CREATE TABLE IF NOT EXISTS " + table + " ");
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/** Runs the DDL, which creates the table unless it exists. */
	static void create(DataSource dataSource, LockTableDialect dialect, String table) {
		String ddl = withoutComments(ddl(dialect, table));
		try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
			if (!connection.getAutoCommit()) {
				connection.setAutoCommit(true);
			}
			statement.execute(ddl);
		}
		catch (SQLException ex) {
			throw new LockStoreConnectionException(dialect.product(), "distlock could not create its lock table '"
					+ table + "': " + JdbcFailures.describe(ex), "Create the table with distlock-jdbc's DDL (io/github/"
					+ "distlock/jdbc/" + dialect.schemaResource() + ") as a user that may, or grant the application's "
					+ "database user CREATE.", ex);
		}
	}

	/** The statement alone: drivers differ on comments and a trailing semicolon. */
	private static String withoutComments(String ddl) {
		StringBuilder statement = new StringBuilder();
		for (String line : ddl.split("\n")) {
			int comment = line.indexOf("--");
			statement.append((comment >= 0) ? line.substring(0, comment) : line).append('\n');
		}
		String text = statement.toString().strip();
		return text.endsWith(";") ? text.substring(0, text.length() - 1) : text;
	}

}
