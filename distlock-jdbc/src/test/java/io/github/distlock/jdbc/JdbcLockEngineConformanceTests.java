package io.github.distlock.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.TestInstance;

import io.github.distlock.LockLostListener;
import io.github.distlock.engine.LockEngine;
import io.github.distlock.fixtures.jdbc.PrivateDatabase;
import io.github.distlock.conformance.AbstractLockEngineConformanceTests;

/**
 * The engine conformance suite on each database the JDBC engine supports, each in a private database on a real
 * server (H2 in memory).
 */
class JdbcLockEngineConformanceTests {

	@Nested
	@TestInstance(TestInstance.Lifecycle.PER_CLASS)
	class OnPostgreSql extends OnDatabase {

		OnPostgreSql() {
			super(PrivateDatabase::postgresql);
		}

	}

	@Nested
	@TestInstance(TestInstance.Lifecycle.PER_CLASS)
	class OnMariaDb extends OnDatabase {

		OnMariaDb() {
			super(PrivateDatabase::mariadb);
		}

	}

	@Nested
	@TestInstance(TestInstance.Lifecycle.PER_CLASS)
	class OnH2 extends OnDatabase {

		OnH2() {
			super(PrivateDatabase::h2);
		}

	}

	abstract static class OnDatabase extends AbstractLockEngineConformanceTests {

		private final Supplier<PrivateDatabase> databases;

		private final List<JdbcLockEngine> created = new CopyOnWriteArrayList<>();

		private PrivateDatabase database;

		private LockTableDialect dialect;

		OnDatabase(Supplier<PrivateDatabase> databases) {
			this.databases = databases;
		}

		@BeforeAll
		void createDatabase() {
			this.database = this.databases.get();
			JdbcLockEngine engine = newEngine(this.lost::add);
			engine.createTableIfMissing();
			this.dialect = LockTableDialect.valueOf(engine.databaseProduct().toUpperCase(Locale.ROOT));
			engine.close();
		}

		@AfterAll
		void dropDatabase() {
			this.database.close();
		}

		@Override
		protected JdbcLockEngine newEngine(LockLostListener listener) {
			JdbcLockEngine engine = new JdbcLockEngine(this.database.dataSource(), JdbcLockEngine.DEFAULT_TABLE,
					Duration.ofSeconds(5), JdbcLockEngine.DEFAULT_POLL_INTERVAL, listener);
			this.created.add(engine);
			return engine;
		}

		@Override
		protected void crash(LockEngine engine) {
			((JdbcLockEngine) engine).close();
			this.created.remove(engine);
		}

		@Override
		protected boolean lockExists(String name, String key) {
			return count("SELECT COUNT(*) FROM distlock_locks WHERE lock_id = ? AND holder IS NOT NULL AND expires_at > "
					+ this.dialect.now(), LockIdentity.of(name, key)) == 1;
		}

		@Override
		protected void deleteLock(String name, String key) {
			this.database.execute("DELETE FROM distlock_locks WHERE lock_id = '" + LockIdentity.of(name, key) + "'");
		}

		@Override
		protected void awaitWaiterQueued(String key) throws Exception {
			// The table knows nothing of waiters; the engines do.
			long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
			while (System.nanoTime() < deadline) {
				if (this.created.stream().anyMatch((engine) -> engine.waitingCount() > 0)) {
					return;
				}
				Thread.sleep(5);
			}
			throw new AssertionError("No waiter for " + key);
		}

		private long count(String sql, String parameter) {
			try (Connection connection = this.database.dataSource().getConnection();
					PreparedStatement statement = connection.prepareStatement(sql)) {
				statement.setString(1, parameter);
				try (ResultSet result = statement.executeQuery()) {
					result.next();
					return result.getLong(1);
				}
			}
			catch (SQLException ex) {
				throw new IllegalStateException(ex);
			}
		}

	}

}
