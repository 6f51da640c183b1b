package io.github.distlock.test;

import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.function.Supplier;
import java.util.stream.Stream;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import io.github.distlock.LockAcquisitionException;
import io.github.distlock.LostLock;
import io.github.distlock.engine.LockHandle;
import io.github.distlock.engine.LockRequest;
import io.github.distlock.jdbc.JdbcLockEngine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import io.github.distlock.fixtures.jdbc.PrivateDatabase;

/**
 * The fallback for a machine with only a JDK: PostgreSQL and MariaDB embedded in the test JVM start here (as root
 * too) and the JDBC engine locks on them, so the JDBC tests run wherever the build runs. Started whether or not the
 * machine runs its own servers, so the fallback is known to work before it is needed.
 */
class EmbeddedDatabaseServersTests {

	static Stream<Arguments> embedded() {
		return Stream.of(Arguments.of("PostgreSQL", (Supplier<PrivateDatabase>) PrivateDatabase::onEmbeddedPostgresql),
				Arguments.of("MariaDB", (Supplier<PrivateDatabase>) PrivateDatabase::onEmbeddedMariadb));
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("embedded")
	void theEngineLocksOnAnEmbeddedServer(String server, Supplier<PrivateDatabase> databases) throws Exception {
		BlockingQueue<LostLock> lost = new LinkedBlockingQueue<>();
		try (PrivateDatabase database = databases.get();
				JdbcLockEngine first = new JdbcLockEngine(database.dataSource(), JdbcLockEngine.DEFAULT_TABLE,
						Duration.ofSeconds(5), JdbcLockEngine.DEFAULT_POLL_INTERVAL, lost::add);
				JdbcLockEngine second = new JdbcLockEngine(database.dataSource(), JdbcLockEngine.DEFAULT_TABLE,
						Duration.ofSeconds(5), JdbcLockEngine.DEFAULT_POLL_INTERVAL, lost::add)) {
			first.createTableIfMissing();
			LockRequest request = new LockRequest("embedded", "k", Duration.ofSeconds(10), Duration.ZERO, true, null);
			LockHandle held = first.acquire(request);
			assertThatExceptionOfType(LockAcquisitionException.class).isThrownBy(() -> second.acquire(request));
			assertThat(held.release()).isTrue();
			LockHandle next = second.acquire(request);
			assertThat(next.token()).isGreaterThan(held.token());
			assertThat(next.release()).isTrue();
			assertThat(lost).isEmpty();
		}
	}

}
