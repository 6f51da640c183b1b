package io.github.distlock.torture.run;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.github.distlock.fixtures.jdbc.PrivateDatabase;

/**
 * A private database on the machine's MariaDB. The workers log in as a user of their own, created for the run, which
 * tells their sessions apart (MariaDB shows no client-chosen session name without the performance schema); a stall
 * is {@code LOCK TABLES ... WRITE}, a kill {@code KILL CONNECTION}.
 */
final class MariaDbLockStore implements DatabaseLockStore {

	private static final String TABLE = "distlock_locks";

	private static final String NOW_MICROS = "TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP(6))";

	private final PrivateDatabase database;

	private final String workerUser;

	MariaDbLockStore() {
		this.database = PrivateDatabase.mariadb();
		this.database.execute(PostgresLockStore.schema("schema-mariadb.sql"));
		String name = this.database.url().substring(this.database.url().lastIndexOf('/') + 1);
		// The database's random name makes the user's unique too; the lock statements need no more than these rights.
		this.workerUser = "w" + name.substring(name.length() - 12);
		this.database.execute("CREATE USER '" + this.workerUser + "'@'%'");
		this.database.execute("GRANT SELECT, INSERT, UPDATE, DELETE ON " + name + ".* TO '" + this.workerUser + "'@'%'");
	}

	@Override
	public List<String> workerArguments(String worker, Duration statementTimeout) {
		return DatabaseLockStore.engineArguments(this.database.url(), this.workerUser, statementTimeout);
	}

	@Override
	public void stall(Duration duration) throws InterruptedException {
		try (Connection connection = this.database.dataSource().getConnection();
				Statement statement = connection.createStatement()) {
			statement.execute("LOCK TABLES " + TABLE + " WRITE");
			try {
				Thread.sleep(duration.toMillis());
			}
			finally {
				statement.execute("UNLOCK TABLES");
			}
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Could not stall the lock table: " + ex.getMessage(), ex);
		}
	}

	@Override
	public int killWorkerSessions() {
		try (Connection connection = this.database.dataSource().getConnection()) {
			List<Long> sessions = new ArrayList<>();
			try (PreparedStatement list = connection
				.prepareStatement("SELECT ID FROM information_schema.PROCESSLIST WHERE USER = ?")) {
				list.setString(1, this.workerUser);
				try (ResultSet result = list.executeQuery()) {
					while (result.next()) {
						sessions.add(result.getLong(1));
					}
				}
			}
			int killed = 0;
			for (long id : sessions) {
				try (Statement kill = connection.createStatement()) {
					kill.execute("KILL CONNECTION " + id);
					killed++;
				}
				catch (SQLException ex) {
					// Ended between the listing and the kill.
				}
			}
			return killed;
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Could not kill the workers' sessions: " + ex.getMessage(), ex);
		}
	}

	@Override
	public List<String> heldKeys() {
		return DatabaseLockStore.column(this.database.dataSource(), "SELECT CONCAT(lock_name, ':', lock_key) FROM "
				+ TABLE + " WHERE holder IS NOT NULL AND expires_at > " + NOW_MICROS);
	}

	@Override
	public void close() {
		try {
			this.database.execute("DROP USER IF EXISTS '" + this.workerUser + "'@'%'");
		}
		finally {
			this.database.close();
		}
	}

}
