package io.github.distlock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import java.util.stream.Stream;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.HikariPoolMXBean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import io.github.distlock.LockAcquisitionException;
import io.github.distlock.LockMode;
import io.github.distlock.LockStoreConnectionException;
import io.github.distlock.LockStoreException;
import io.github.distlock.LostLock;
import io.github.distlock.engine.LockHandle;
import io.github.distlock.engine.LockRequest;
import io.github.distlock.fixtures.jdbc.PrivateDatabase;
import io.github.distlock.conformance.StallLosses;

/**
 * What the JDBC engine promises beyond the conformance suite, on real PostgreSQL and MariaDB servers and H2.
 */
class JdbcLockEngineIntegrationTests {

	private final BlockingQueue<LostLock> lost = new LinkedBlockingQueue<>();

	static Stream<Arguments> databases() {
		return Stream.of(Arguments.of("PostgreSQL", (Supplier<PrivateDatabase>) PrivateDatabase::postgresql),
				Arguments.of("MariaDB", (Supplier<PrivateDatabase>) PrivateDatabase::mariadb),
				Arguments.of("H2", (Supplier<PrivateDatabase>) PrivateDatabase::h2));
	}

	private JdbcLockEngine engine(DataSource dataSource) {
		return new JdbcLockEngine(dataSource, JdbcLockEngine.DEFAULT_TABLE, Duration.ofSeconds(5),
				JdbcLockEngine.DEFAULT_POLL_INTERVAL, this.lost::add);
	}

	private static LockRequest request(String name, String key) {
		return new LockRequest(name, key, Duration.ofSeconds(10), Duration.ZERO, true, null);
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("databases")
	void namesAndKeysNeverMergeAndHostileKeysAreStoredSafely(String database, Supplier<PrivateDatabase> databases)
			throws Exception {
		try (PrivateDatabase db = databases.get(); JdbcLockEngine engine = engine(db.dataSource())) {
			engine.createTableIfMissing();
			LockHandle colon = engine.acquire(request("a", "x:y"));
			LockHandle shifted = engine.acquire(request("a:x", "y"));
			String megabyteLike = "k".repeat(LockRequest.MAX_KEY_LENGTH);
			List<String> hostile = List.of("{x}", "line\r\nbreak", "nul\u0000char", "\uD800lone", "?lone",
					"日本語", megabyteLike, "'; DROP TABLE distlock_locks; --");
			List<LockHandle> handles = new ArrayList<>();
			for (String key : hostile) {
				handles.add(engine.acquire(request("hostile", key)));
			}
			assertThat(handles).extracting(LockHandle::key).containsExactlyElementsOf(hostile);
			for (String key : hostile) {
				assertThatExceptionOfType(LockAcquisitionException.class)
					.as("key %s is held", key)
					.isThrownBy(() -> engine.acquire(request("hostile", key)));
			}
			assertThat(storedKey(db, "hostile", "line\r\nbreak")).isEqualTo("line\\r\\nbreak");
			assertThat(storedKey(db, "hostile", megabyteLike)).hasSizeLessThan(300);
			assertThat(colon.release()).isTrue();
			assertThat(shifted.release()).isTrue();
			for (LockHandle handle : handles) {
				assertThat(handle.release()).isTrue();
			}
			assertThat(this.lost).isEmpty();
		}
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("databases")
	void leasesRunOnTheDatabaseClock(String database, Supplier<PrivateDatabase> databases) throws Exception {
		try (PrivateDatabase db = databases.get(); JdbcLockEngine engine = engine(db.dataSource())) {
			engine.createTableIfMissing();
			LockHandle handle = engine.acquire(new LockRequest("clock", "k", Duration.ofSeconds(7), Duration.ZERO,
					false, null));
			LockTableDialect dialect = dialect(engine);
			long remainingMicros = query(db, "SELECT expires_at - " + dialect.now() + " FROM distlock_locks WHERE "
					+ "lock_id = '" + LockIdentity.of("clock", "k") + "'");
			assertThat(remainingMicros).isBetween(TimeUnit.SECONDS.toMicros(6), TimeUnit.SECONDS.toMicros(7));
			handle.release();
		}
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("databases")
	void tokensKeepGrowingWhenAFreeRowIsDeleted(String database, Supplier<PrivateDatabase> databases)
			throws Exception {
		try (PrivateDatabase db = databases.get(); JdbcLockEngine engine = engine(db.dataSource())) {
			engine.createTableIfMissing();
			LockHandle first = engine.acquire(request("tokens", "k"));
			first.release();
			LockHandle second = engine.acquire(request("tokens", "k"));
			assertThat(second.token()).as("raised by the take-over").isGreaterThan(first.token());
			second.release();
			db.execute("DELETE FROM distlock_locks");
			LockHandle third = engine.acquire(request("tokens", "k"));
			assertThat(third.token()).as("a new row starts at the database clock").isGreaterThan(second.token());
			third.release();
		}
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("databases")
	void oneStatementRenewsEveryHeldLockOnATick(String database, Supplier<PrivateDatabase> databases)
			throws Exception {
		try (PrivateDatabase db = databases.get()) {
			AtomicInteger renewals = new AtomicInteger();
			DataSource counting = countingStatements(db.dataSource(), "SET expires_at = ", renewals);
			try (JdbcLockEngine engine = engine(counting)) {
				engine.createTableIfMissing();
				List<LockHandle> handles = new ArrayList<>();
				for (int i = 0; i < 300; i++) {
					handles.add(engine.acquire(new LockRequest("batch", "k" + i, Duration.ofMillis(900), Duration.ZERO,
							true, null)));
				}
				long roundTripsBefore = engine.statistics().renewalRoundTrips();
				int statementsBefore = renewals.get();
				long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(2000);
				while (System.nanoTime() < until) {
					Thread.sleep(50);
				}
				long ticks = engine.statistics().renewalRoundTrips() - roundTripsBefore;
				assertThat(ticks).as("renewal ticks in 2 s of a 900 ms lease").isBetween(4L, 12L);
				// A tick under way when either count is read has sent its statement but not yet counted itself: at the
				// start that tick is in the ticks and not in the statements, at the end the other way round. Either way
				// the statements stay within one of the ticks, where a statement per lock would be 300 per tick.
				assertThat(renewals.get() - statementsBefore).as("one statement per tick for 300 locks")
					.isBetween((int) ticks - 1, (int) ticks + 1);
				// The last tick's answer may not be settled yet when the counts are read.
				assertThat(engine.statistics().renewals()).isGreaterThanOrEqualTo(300 * (ticks - 1));
				for (LockHandle handle : handles) {
					assertThat(handle.release()).isTrue();
				}
				assertThat(this.lost).isEmpty();
			}
		}
	}

	static Stream<Arguments> servers() {
		return databases().filter((arguments) -> !"H2".equals(arguments.get()[0]));
	}

	/**
	 * The database ends every session of the engine's pool, four times 250 ms apart, while a lock with a 1 s lease is
	 * held (an operator's kill, a proxy's idle timeout, a failover): the pool then hands out dead connections, and
	 * the watchdog must renew on live ones, so the lock is neither lost nor reported lost, and it is released.
	 */
	@ParameterizedTest(name = "{0}")
	@MethodSource("servers")
	void sessionsEndedByTheDatabaseCostNoLock(String database, Supplier<PrivateDatabase> databases) throws Exception {
		try (PrivateDatabase db = databases.get(); JdbcLockEngine engine = engine(db.dataSource())) {
			engine.createTableIfMissing();
			LockHandle held = engine.acquire(new LockRequest("sessions", "k", Duration.ofSeconds(1), Duration.ZERO,
					true, null));
			String others = "PostgreSQL".equals(database)
					? "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()"
					: "SELECT ID FROM information_schema.PROCESSLIST WHERE DB = DATABASE() AND ID <> CONNECTION_ID()";
			String kill = "PostgreSQL".equals(database) ? "SELECT pg_terminate_backend(%d)" : "KILL CONNECTION %d";
			int killed = 0;
			try (Connection admin = DriverManager.getConnection(db.url(), db.user(), "")) {
				for (int round = 0; round < 4; round++) {
					List<Long> sessions = new ArrayList<>();
					try (ResultSet result = admin.createStatement().executeQuery(others)) {
						while (result.next()) {
							sessions.add(result.getLong(1));
						}
					}
					for (long session : sessions) {
						try {
							admin.createStatement().execute(String.format(kill, session));
							killed++;
						}
						catch (SQLException gone) {
							// Ended between the listing and the kill.
						}
					}
					// Fault timing: a quarter of the lease between rounds, so renewals meet fresh kills.
					Thread.sleep(250);
				}
			}
			assertThat(killed).as("sessions ended").isPositive();
			long renewedFrom = held.leaseDeadlineNanos();
			long giveUp = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
			while (held.leaseDeadlineNanos() == renewedFrom && !held.isLost() && System.nanoTime() < giveUp) {
				// Polling the handle: renewal signals nothing else.
				Thread.sleep(20);
			}
			assertThat(held.isLost()).as("lost").isFalse();
			assertThat(held.verify()).as("still the holder").isTrue();
			assertThat(held.release()).isTrue();
			assertThat(this.lost).isEmpty();
		}
	}

	/**
	 * What docs/jdbc.md says of the pool: the watchdog's renewals borrow from the application's pool. The application's
	 * own work takes every connection the pool has: for a third of a lease that costs nothing (the renewal that could
	 * not borrow is made at the next tick, within the lease), no false alarm; kept past the lease it costs the lock,
	 * which is reported lost, and another instance takes it with a greater token.
	 */
	@ParameterizedTest(name = "{0}")
	@MethodSource("databases")
	void aPoolKeptExhaustedCostsAHeldLockOnlyPastItsLeaseAndSaysSo(String database,
			Supplier<PrivateDatabase> databases) throws Exception {
		Duration lease = Duration.ofSeconds(3);
		HikariConfig config = new HikariConfig();
		try (PrivateDatabase db = databases.get()) {
			config.setJdbcUrl(db.url());
			config.setUsername(db.user());
			config.setMaximumPoolSize(3);
			config.setConnectionTimeout(250);
			try (HikariDataSource pool = new HikariDataSource(config); JdbcLockEngine engine = engine(pool);
					JdbcLockEngine other = engine(db.dataSource())) {
				engine.createTableIfMissing();
				LockHandle held = engine.acquire(new LockRequest("pool", "k", lease, Duration.ZERO, true, null));

				long renewedFrom = held.leaseDeadlineNanos();
				try (BorrowedConnections borrowed = BorrowedConnections.all(pool)) {
					assertThat(borrowed.count()).as("connections taken from the pool").isPositive();
					// Fault timing: the pool stays exhausted for a third of the lease.
					Thread.sleep(lease.toMillis() / 3);
				}
				long giveUp = System.nanoTime() + lease.toNanos();
				while (held.leaseDeadlineNanos() == renewedFrom && !held.isLost() && System.nanoTime() < giveUp) {
					// Polling the handle: renewal signals nothing else.
					Thread.sleep(20);
				}
				assertThat(held.leaseDeadlineNanos()).as("renewed once the pool had connections again")
					.isGreaterThan(renewedFrom);
				assertThat(this.lost).as("no false alarm").isEmpty();
				assertThat(held.verify()).isTrue();

				try (BorrowedConnections borrowed = BorrowedConnections.all(pool)) {
					assertThat(borrowed.count()).as("connections taken from the pool").isPositive();
					LostLock loss = this.lost.poll(lease.toMillis() * 2, TimeUnit.MILLISECONDS);
					assertThat(loss).as("the loss, reported").isNotNull();
					assertThat(loss.key()).isEqualTo("k");
					assertThat(loss.reason()).isEqualTo(LostLock.Reason.STORE_UNREACHABLE);
					assertThat(held.isLost()).isTrue();
					// The loss is reported at the holder's own deadline, reckoned from when it sent its last renewal,
					// so the row's expiry in the database, reckoned from when that renewal ran, comes a moment later.
					LockHandle next = other
						.acquire(new LockRequest("pool", "k", lease, Duration.ofSeconds(1), true, null));
					assertThat(next.token()).as("the fence holds").isGreaterThan(held.token());
					assertThat(next.release()).isTrue();
				}
				assertThat(held.release()).as("nothing left to release").isFalse();
				assertThat(this.lost).as("reported once").isEmpty();
			}
		}
	}

	/** Every connection a pool still lends, held by "the application" until closed. */
	private static final class BorrowedConnections implements AutoCloseable {

		private final List<Connection> connections = new ArrayList<>();

		static BorrowedConnections all(DataSource pool) {
			BorrowedConnections borrowed = new BorrowedConnections();
			while (true) {
				try {
					borrowed.connections.add(pool.getConnection());
				}
				catch (SQLException exhausted) {
					// The pool's connection timeout ran out: nothing more to lend.
					return borrowed;
				}
			}
		}

		int count() {
			return this.connections.size();
		}

		@Override
		public void close() throws SQLException {
			for (Connection connection : this.connections) {
				connection.close();
			}
		}

	}

	/** Waits until a PostgreSQL engine's release listener holds its connection; other databases have none. */
	private static void awaitListening(JdbcLockEngine engine, String database) throws InterruptedException {
		if (!database.startsWith("PostgreSQL")) {
			return;
		}
		long giveUpAt = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
		while (!engine.hearsReleases() && System.nanoTime() - giveUpAt < 0) {
			// Polling: the listener's thread announces its connection nowhere else.
			Thread.sleep(10);
		}
		assertThat(engine.hearsReleases()).as("the release listener, listening").isTrue();
	}

	/**
	 * A pool with HikariCP's default connection timeout (30 s) lends nothing while the application's work holds every
	 * connection: no renewal reaches the database, so the lock is reported lost at its own lease deadline, not when
	 * the pool gives up; and the renewal that gave up is never sent once connections come back (nothing renews the
	 * row of a lock already reported lost).
	 */
	@ParameterizedTest(name = "{0}")
	@MethodSource("databases")
	void aPoolThatLendsNothingCostsTheLockAtItsLeaseNotAtThePoolsTimeout(String database,
			Supplier<PrivateDatabase> databases) throws Exception {
		Duration lease = Duration.ofSeconds(3);
		Duration poolTimeout = Duration.ofSeconds(30);
		HikariConfig config = new HikariConfig();
		AtomicInteger renewalStatements = new AtomicInteger();
		try (PrivateDatabase db = databases.get()) {
			config.setJdbcUrl(db.url());
			config.setUsername(db.user());
			config.setMaximumPoolSize(3);
			config.setConnectionTimeout(poolTimeout.toMillis());
			try (HikariDataSource pool = new HikariDataSource(config);
					JdbcLockEngine engine = engine(countingStatements(pool, "SET expires_at = ", renewalStatements));
					JdbcLockEngine other = engine(db.dataSource())) {
				engine.createTableIfMissing();
				HikariPoolMXBean connections = pool.getHikariPoolMXBean();
				// The engine's own, between statements: PostgreSQL's release listener keeps one, taken by its thread
				// once it starts (CI saw it counted before it was taken, and then left over at the end).
				awaitListening(engine, database);
				int kept = connections.getActiveConnections();
				LockHandle held = engine.acquire(new LockRequest("lending", "k", lease, Duration.ZERO, true, null));
				List<Connection> borrowed = new ArrayList<>();
				int sentAtLoss;
				try {
					// Every connection the pool may open, taken before the first renewal (a third of the lease).
					while (connections.getActiveConnections() < config.getMaximumPoolSize()) {
						borrowed.add(pool.getConnection());
					}
					assertThat(renewalStatements.get()).as("renewals before the pool ran dry").isZero();
					long dryAt = System.nanoTime();
					LostLock loss = this.lost.poll(poolTimeout.toMillis() / 2, TimeUnit.MILLISECONDS);
					assertThat(loss).as("the loss, reported before the pool's timeout").isNotNull();
					assertThat(Duration.ofNanos(System.nanoTime() - dryAt)).as("reported after")
						.isLessThan(poolTimeout.dividedBy(2));
					assertThat(loss.reason()).isEqualTo(LostLock.Reason.STORE_UNREACHABLE);
					assertThat(held.isLost()).isTrue();
					sentAtLoss = renewalStatements.get();
					assertThat(sentAtLoss).as("renewals sent while the pool lent nothing").isZero();
					assertThat(connections.getThreadsAwaitingConnection()).as("the renewal still waiting for the pool")
						.isEqualTo(1);
				}
				finally {
					for (Connection connection : borrowed) {
						connection.close();
					}
				}
				// The renewal that gave up gets a connection now, and hands it back without sending anything.
				long giveUpAt = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
				while ((connections.getThreadsAwaitingConnection() > 0 || connections.getActiveConnections() > kept)
						&& System.nanoTime() < giveUpAt) {
					Thread.sleep(10);
				}
				assertThat(connections.getThreadsAwaitingConnection()).isZero();
				assertThat(connections.getActiveConnections()).as("connections the engine holds").isEqualTo(kept);
				assertThat(renewalStatements.get()).as("renewals sent after giving up").isEqualTo(sentAtLoss);
				LockHandle next = other.acquire(new LockRequest("lending", "k", lease, Duration.ofSeconds(2), true,
						null));
				assertThat(next.token()).as("the fence holds").isGreaterThan(held.token());
				assertThat(next.release()).isTrue();
				assertThat(held.release()).as("nothing left to release").isFalse();
				assertThat(this.lost).as("reported once").isEmpty();
			}
		}
	}

	/**
	 * Another session holds the lock table (PostgreSQL's {@code LOCK TABLE}, MariaDB's {@code LOCK TABLES}) past a
	 * one-second lease, and the statement timeout (5 s) is longer than the lease: the renewal sent a third of the
	 * lease in waits for the table. The holder's clock decides: the lock is reported lost at its deadline, within a
	 * watchdog tick, while the table is still held; another instance gets the lock once the table is free, with a
	 * larger token.
	 */
	@ParameterizedTest(name = "{0}")
	@MethodSource("servers")
	void aLockTableHeldAwayPastTheLeaseCostsTheLockAtItsDeadlineWithinATick(String database,
			Supplier<PrivateDatabase> databases) throws Exception {
		Duration lease = Duration.ofSeconds(1);
		StallLosses losses = new StallLosses(this.lost);
		try (PrivateDatabase db = databases.get();
				JdbcLockEngine engine = new JdbcLockEngine(db.dataSource(), JdbcLockEngine.DEFAULT_TABLE,
						Duration.ofSeconds(5), JdbcLockEngine.DEFAULT_POLL_INTERVAL, losses);
				JdbcLockEngine other = engine(db.dataSource())) {
			engine.createTableIfMissing();
			LockHandle held = engine.acquire(new LockRequest("stalled", "k", lease, Duration.ZERO, true, null));
			long grantedUntil = held.leaseDeadlineNanos();
			try (Connection blocker = db.dataSource().getConnection(); Statement statement = blocker.createStatement()) {
				boolean postgres = "PostgreSQL".equals(database);
				if (postgres) {
					blocker.setAutoCommit(false);
					statement.execute("LOCK TABLE distlock_locks IN ACCESS EXCLUSIVE MODE");
				}
				else {
					statement.execute("LOCK TABLES distlock_locks WRITE");
				}
				try {
					LostLock loss = this.lost.poll(lease.toMillis() * 3, TimeUnit.MILLISECONDS);
					losses.assertLostAtItsDeadline(loss, held, grantedUntil, lease);
				}
				finally {
					if (postgres) {
						blocker.rollback();
					}
					else {
						statement.execute("UNLOCK TABLES");
					}
				}
			}
			LockHandle next = other.acquire(new LockRequest("stalled", "k", lease, Duration.ofSeconds(5), true, null));
			assertThat(next.token()).as("the fence holds").isGreaterThan(held.token());
			assertThat(next.release()).isTrue();
			assertThat(this.lost).as("reported once").isEmpty();
		}
	}

	/**
	 * A release after the engine closed (a method still running while the application shuts down), of a lock found
	 * taken from it: answered and reported like any such release, not failed by the closed engine's cleanup thread.
	 */
	@Test
	void aReleaseAfterTheEngineClosedAnswersAndReportsTheLoss() throws Exception {
		try (PrivateDatabase db = PrivateDatabase.h2()) {
			JdbcLockEngine engine = engine(db.dataSource());
			engine.createTableIfMissing();
			LockHandle held = engine.acquire(request("closing", "k"));
			db.execute("UPDATE distlock_locks SET holder = 'another-holder'");
			engine.close();
			assertThat(held.release()).isFalse();
			assertThat(this.lost).extracting(LostLock::reason).containsExactly(LostLock.Reason.NOT_OWNED);
			this.lost.clear();
		}
	}

	/** Read/write locks and permits are the Redis engine's: asked of this one, they fail clearly and lock nothing. */
	@Test
	void aReadWriteLockOrAPermitIsRefusedWithoutLockingAnything() throws Exception {
		try (PrivateDatabase db = PrivateDatabase.h2(); JdbcLockEngine engine = engine(db.dataSource())) {
			engine.createTableIfMissing();
			assertThatExceptionOfType(UnsupportedOperationException.class)
				.isThrownBy(() -> engine.acquire(new LockRequest("shared", "k", Duration.ofSeconds(10),
						Duration.ZERO, true, null, LockMode.READ, 0)))
				.withMessageContaining("mode = READ")
				.withMessageContaining("'shared'");
			assertThatExceptionOfType(UnsupportedOperationException.class)
				.isThrownBy(() -> engine.acquire(new LockRequest("shared", "k", Duration.ofSeconds(10),
						Duration.ZERO, true, null, LockMode.EXCLUSIVE, 3)))
				.withMessageContaining("not permits");
			assertThat(engine.heldCount()).isZero();
			engine.acquire(request("shared", "k")).release();
		}
	}

	@Test
	void onPostgreSqlAWaiterInAnotherInstanceIsWokenByTheReleaseNotByItsPoll() throws Exception {
		try (PrivateDatabase db = PrivateDatabase.postgresql();
				JdbcLockEngine holder = engine(db.dataSource());
				JdbcLockEngine waiter = new JdbcLockEngine(db.dataSource(), JdbcLockEngine.DEFAULT_TABLE,
						Duration.ofSeconds(5), Duration.ofMinutes(1), this.lost::add)) {
			holder.createTableIfMissing();
			long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
			while (!waiter.hearsReleases() && System.nanoTime() < until) {
				Thread.sleep(10);
			}
			assertThat(waiter.hearsReleases()).as("listening").isTrue();
			LockHandle held = holder.acquire(request("notify", "k"));
			java.util.concurrent.CompletableFuture<LockHandle> next = java.util.concurrent.CompletableFuture
				.supplyAsync(() -> {
					try {
						return waiter.acquire(new LockRequest("notify", "k", Duration.ofSeconds(10),
								Duration.ofSeconds(30), true, null));
					}
					catch (InterruptedException ex) {
						throw new IllegalStateException(ex);
					}
				});
			until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
			while (waiter.waitingCount() == 0 && System.nanoTime() < until) {
				Thread.sleep(5);
			}
			// Long enough for the waiter's back-off to reach seconds: a poll would come 2 s or more after the release.
			Thread.sleep(3000);
			long heardBefore = waiter.releasesHeard();
			long releasedAt = System.nanoTime();
			assertThat(held.release()).isTrue();
			LockHandle taken = next.get(10, TimeUnit.SECONDS);
			assertThat(Duration.ofNanos(System.nanoTime() - releasedAt)).isLessThan(Duration.ofSeconds(1));
			assertThat(waiter.releasesHeard()).isGreaterThan(heardBefore);
			assertThat(taken.token()).isGreaterThan(held.token());
			taken.release();
		}
	}

	@Test
	void aMissingTableFailsTheStartUpCheckWithWhatToDo() {
		try (PrivateDatabase db = PrivateDatabase.postgresql(); JdbcLockEngine engine = engine(db.dataSource())) {
			assertThatExceptionOfType(LockStoreConnectionException.class).isThrownBy(engine::checkTable)
				.withMessageContaining("distlock_locks")
				.withMessageContaining("does not exist")
				.satisfies((ex) -> assertThat(ex.getAction()).contains("distlock.jdbc.initialize-schema=true")
					.contains("schema-postgresql.sql"));
			engine.createTableIfMissing();
			engine.checkTable();
		}
	}

	@Test
	void aUserWithoutPrivilegesIsRefusedAtOnceNotMadeToWait() throws Exception {
		try (PrivateDatabase db = PrivateDatabase.postgresql()) {
			try (JdbcLockEngine owner = engine(db.dataSource())) {
				owner.createTableIfMissing();
			}
			String role = "distlock_reader_" + Long.toHexString(System.nanoTime());
			db.execute("CREATE ROLE " + role + " LOGIN");
			db.execute("GRANT SELECT ON distlock_locks TO " + role);
			HikariConfig config = new HikariConfig();
			config.setJdbcUrl(db.url());
			config.setUsername(role);
			try (HikariDataSource limited = new HikariDataSource(config);
					JdbcLockEngine engine = engine(limited)) {
				engine.checkTable();
				long start = System.nanoTime();
				assertThatExceptionOfType(LockStoreException.class)
					.isThrownBy(() -> engine.acquire(new LockRequest("denied", "k", Duration.ofSeconds(10),
							Duration.ofSeconds(5), true, null)))
					.withMessageContaining("permission denied")
					.withMessageContaining("Grant the application's database user SELECT, INSERT and UPDATE");
				assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(2));
				assertThat(engine.standingRefusal()).contains("permission denied");
			}
			finally {
				db.execute("DROP OWNED BY " + role);
				db.execute("DROP ROLE " + role);
			}
		}
	}

	@Test
	void anUnreachableDatabaseFailsTheEngineAtOnceSayingSo() throws Exception {
		int port;
		try (java.net.ServerSocket socket = new java.net.ServerSocket(0)) {
			port = socket.getLocalPort();
		}
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl("jdbc:postgresql://127.0.0.1:" + port + "/none");
		config.setUsername("postgres");
		config.setPassword("not-logged-anywhere");
		config.setConnectionTimeout(500);
		config.setInitializationFailTimeout(-1);
		try (HikariDataSource unreachable = new HikariDataSource(config)) {
			assertThatExceptionOfType(LockStoreConnectionException.class).isThrownBy(() -> engine(unreachable))
				.withMessageStartingWith("The database could not be reached")
				.withMessageNotContaining("not-logged-anywhere");
		}
	}

	private static LockTableDialect dialect(JdbcLockEngine engine) {
		return LockTableDialect.valueOf(engine.databaseProduct().toUpperCase(Locale.ROOT));
	}

	private static String storedKey(PrivateDatabase db, String name, String key) throws SQLException {
		try (Connection connection = db.dataSource().getConnection();
				PreparedStatement statement = connection
					.prepareStatement("SELECT lock_key FROM distlock_locks WHERE lock_id = ?")) {
			statement.setString(1, LockIdentity.of(name, key));
			try (ResultSet result = statement.executeQuery()) {
				assertThat(result.next()).isTrue();
				return result.getString(1);
			}
		}
	}

	private static long query(PrivateDatabase db, String sql) throws SQLException {
		try (Connection connection = db.dataSource().getConnection();
				ResultSet result = connection.createStatement().executeQuery(sql)) {
			assertThat(result.next()).isTrue();
			return result.getLong(1);
		}
	}

	/**
	 * The real data source, counting the statements prepared whose SQL contains the given text: a window on what the
	 * engine sends, not a stand-in for the database.
	 */
	private static DataSource countingStatements(DataSource target, String sqlPart, AtomicInteger count) {
		return (DataSource) Proxy.newProxyInstance(JdbcLockEngineIntegrationTests.class.getClassLoader(),
				new Class<?>[] { DataSource.class }, (proxy, method, args) -> {
					Object result = method.invoke(target, args);
					if (result instanceof Connection connection) {
						return Proxy.newProxyInstance(JdbcLockEngineIntegrationTests.class.getClassLoader(),
								new Class<?>[] { Connection.class }, (p, m, a) -> {
									if (m.getName().equals("prepareStatement") && ((String) a[0]).contains(sqlPart)
											&& ((String) a[0]).contains(" IN (")) {
										count.incrementAndGet();
									}
									try {
										return m.invoke(connection, a);
									}
									catch (java.lang.reflect.InvocationTargetException ex) {
										throw ex.getCause();
									}
								});
					}
					return result;
				});
	}

}
