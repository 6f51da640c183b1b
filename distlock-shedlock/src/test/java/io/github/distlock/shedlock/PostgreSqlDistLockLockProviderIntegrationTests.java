package io.github.distlock.shedlock;

import static java.time.Duration.ZERO;
import static java.time.Duration.ofMillis;
import static java.time.Duration.ofSeconds;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;

import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.support.LockException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import io.github.distlock.engine.DisplayedKey;
import io.github.distlock.jdbc.JdbcLockEngine;
import io.github.distlock.fixtures.jdbc.PrivateDatabase;

/**
 * The provider on the JDBC engine and a private database on a real PostgreSQL; and what it does when the database
 * cannot be reached.
 */
class PostgreSqlDistLockLockProviderIntegrationTests extends DistLockLockProviderIntegrationTests {

	private static PrivateDatabase database;

	private static SwitchableDataSource dataSource;

	private static JdbcLockEngine engine;

	private static DistLockLockProvider provider;

	@BeforeAll
	static void startEngine() {
		database = PrivateDatabase.postgresql();
		dataSource = new SwitchableDataSource(database.dataSource());
		engine = new JdbcLockEngine(dataSource, JdbcLockEngine.DEFAULT_TABLE, Duration.ofSeconds(5),
				JdbcLockEngine.DEFAULT_POLL_INTERVAL, lost::add);
		engine.createTableIfMissing();
		provider = new DistLockLockProvider(engine);
	}

	@AfterAll
	static void stopEngine() {
		provider.close();
		engine.close();
		database.close();
	}

	@AfterEach
	void reachable() {
		dataSource.unreachable(false);
	}

	@Override
	protected DistLockLockProvider provider() {
		return provider;
	}

	@Override
	protected boolean isLockedInStore(String lockName) {
		// lock_name and lock_key are the escaped name and key, for operators; ShedLock's names here need no escaping.
		String sql = "SELECT COUNT(*) FROM distlock_locks WHERE lock_name = ? AND lock_key = ? AND holder IS NOT NULL "
				+ "AND expires_at > (EXTRACT(EPOCH FROM statement_timestamp()) * 1000000)::BIGINT";
		try (Connection connection = database.dataSource().getConnection();
				PreparedStatement statement = connection.prepareStatement(sql)) {
			statement.setString(1, DistLockLockProvider.DEFAULT_NAME);
			statement.setString(2, DisplayedKey.of(lockName));
			try (ResultSet result = statement.executeQuery()) {
				result.next();
				return result.getLong(1) == 1;
			}
		}
		catch (SQLException ex) {
			throw new IllegalStateException(ex);
		}
	}

	@Test
	void unreachableDatabaseFailsTheLockWithLockException() {
		dataSource.unreachable(true);
		assertThatThrownBy(() -> provider.lock(lockConfig(LOCK_NAME1))).isInstanceOf(LockException.class)
			.hasMessageContaining("could not be reached");
		dataSource.unreachable(false);
		SimpleLock lock = provider.lock(lockConfig(LOCK_NAME1)).orElseThrow();
		lock.unlock();
		assertUnlocked(LOCK_NAME1);
	}

	@Test
	void lockWhoseExtensionFailedOnAnUnreachableDatabaseIsReleasedAtUnlock() {
		SimpleLock lock = provider.lock(lockConfig(LOCK_NAME1, ofSeconds(30), ZERO)).orElseThrow();
		dataSource.unreachable(true);
		assertThat(lock.extend(ofSeconds(60), ZERO)).isEmpty();
		dataSource.unreachable(false);
		lock.unlock();
		assertUnlocked(LOCK_NAME1);
	}

	@Test
	void unlockOnAnUnreachableDatabaseThrowsAndTheLockExpiresAtLockAtMostFor() {
		SimpleLock lock = provider.lock(lockConfig(LOCK_NAME1, ofMillis(500), ZERO)).orElseThrow();
		dataSource.unreachable(true);
		assertThatThrownBy(lock::unlock).isInstanceOf(LockException.class).hasMessageContaining("lockAtMostFor");
		dataSource.unreachable(false);
		assertLocked(LOCK_NAME1);
		sleepFor(ofMillis(600));
		assertUnlocked(LOCK_NAME1);
	}

}
