package io.github.distlock.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLTimeoutException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

import javax.sql.DataSource;

import org.jspecify.annotations.Nullable;

import io.github.distlock.LockLostListener;
import io.github.distlock.LockStoreConnectionException;
import io.github.distlock.engine.CheckableLockEngine;
import io.github.distlock.engine.DisplayedKey;
import io.github.distlock.engine.ForceReleasableLockEngine;
import io.github.distlock.engine.LockEngineStatistics;
import io.github.distlock.engine.LockHandle;
import io.github.distlock.engine.LockRequest;
import io.github.distlock.engine.support.EngineLocks;
import io.github.distlock.engine.support.LeasedLockEngine;

/**
 * A {@link io.github.distlock.engine.LockEngine} on a relational database: one row per lock in one table
 * ({@code distlock_locks} unless named otherwise; DDL for PostgreSQL, MySQL/MariaDB and H2 ships with this module),
 * written through plain JDBC on the application's {@link DataSource}.
 * <p>
 * Every statement commits on its own (auto-commit), outside any transaction of the application, and every time it
 * compares or writes is the database's clock, never the application's. Acquiring is one statement that inserts the
 * row or takes over a free or expired one, and raises the fencing token in the same statement. Releasing, renewing
 * and extending only touch a row that still names this acquisition's holder id. One watchdog renews every held lock
 * of the engine with one statement per tick.
 * <p>
 * Waiting: on PostgreSQL every release is announced ({@code pg_notify} in the release statement) and heard by every
 * instance ({@code LISTEN}), which wakes its waiters for that lock; elsewhere, and as a fallback, waiters poll with a
 * back-off from 10 ms to the poll interval. Threads of this engine waiting for a lock that this engine releases are
 * woken at once everywhere. Waiters are not served in order across instances.
 */
public final class JdbcLockEngine extends LeasedLockEngine
		implements CheckableLockEngine, ForceReleasableLockEngine, AutoCloseable {

	/** The lock table's name unless another is given. */
	public static final String DEFAULT_TABLE = "distlock_locks";

	/** How often a waiter asks the table again, unless it is woken by a release in this engine. */
	public static final Duration DEFAULT_POLL_INTERVAL = Duration.ofMillis(100);

	/** The longest one statement may take, unless another is given. */
	public static final Duration DEFAULT_STATEMENT_TIMEOUT = Duration.ofSeconds(5);

	/** The PostgreSQL channel releases are announced on. */
	static final String RELEASE_CHANNEL = "distlock_released";

	/** The lock id the health check reads: no lock has it (ids are 64 hex digits). */
	private static final String HEALTH_ID = "distlock-health-check";

	private final DataSource dataSource;

	private final LockTableCalls calls;

	private final LockTableStatements statements;

	private final LockEngineStatistics statistics = new LockEngineStatistics();

	private final LocalReleaseSignals signals = new LocalReleaseSignals();

	private final TableRefusals refusals;

	private final RowCleanup cleanup;

	private final TableRenewer renewer;

	private final HeldRows rows;

	private final TableAcquirer acquirer;

	/** On PostgreSQL with its driver: hears releases by every instance. Otherwise null, and waiters poll. */
	private final PostgreSqlReleaseListener.@Nullable Subscription releaseListener;

	/**
	 * Connects once to learn which database it is.
	 * @param dataSource where the lock table is; the engine borrows a connection per statement
	 * @param table the lock table's name, optionally schema-qualified
	 * @param statementTimeout the longest one statement may take (whole seconds, at least one: JDBC's unit)
	 * @param pollInterval how often a waiter asks the table again
	 * @param lostListener told of every lost lock
	 * @throws LockStoreConnectionException if the database cannot be reached or is not one distlock supports
	 */
	public JdbcLockEngine(DataSource dataSource, String table, Duration statementTimeout, Duration pollInterval,
			LockLostListener lostListener) {
		this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
		this.calls = new LockTableCalls(dataSource, (int) Math.max(1, (statementTimeout.toMillis() + 999) / 1000));
		LockTableDialect dialect = dialect(dataSource);
		boolean notifies = dialect == LockTableDialect.POSTGRESQL && PostgreSqlReleaseListener.isAvailable();
		this.statements = new LockTableStatements(dialect, LockTableStatements.requireTableName(table),
				notifies ? RELEASE_CHANNEL : null);
		this.refusals = new TableRefusals(this.statements, this.statistics);
		this.cleanup = new RowCleanup(this.calls, this.statements);
		this.renewer = new TableRenewer(this.calls, this.statements, this.refusals);
		this.rows = new HeldRows(this.calls, this.statements, this.refusals, this.signals, this.cleanup, this.renewer,
				Objects.requireNonNull(lostListener, "lostListener"), this.statistics);
		this.acquirer = new TableAcquirer(this.calls, this.statements, this.refusals, this.signals, this.cleanup,
				this.rows::heldHere, this.rows::held, pollInterval);
		this.releaseListener = notifies
				? PostgreSqlReleaseListener.subscribe(dataSource, RELEASE_CHANNEL, this.signals) : null;
	}

	private static LockTableDialect dialect(DataSource dataSource) {
		try (Connection connection = dataSource.getConnection()) {
			return LockTableDialect.of(connection);
		}
		catch (SQLException ex) {
			String refused = JdbcFailures.refusal(ex);
			String cause = (refused != null) ? "The database refused distlock's connection: " + refused
					: "The database could not be reached: " + JdbcFailures.describe(ex);
			throw new LockStoreConnectionException("the application's database", cause,
					"Check the DataSource settings (spring.datasource.*) and that the database is running.", ex);
		}
		catch (IllegalStateException ex) {
			throw new LockStoreConnectionException("the application's database", String.valueOf(ex.getMessage()),
					"Use the Redis engine, or a database distlock supports.", ex);
		}
	}

	/** The database behind the engine, as operators know it. */
	public String databaseProduct() {
		return this.statements.dialect.product();
	}

	/** The lock table's DDL for this database, with the table's name. */
	public String schema() {
		return LockTableSchema.ddl(this.statements.dialect, this.statements.table);
	}

	/** Creates the lock table unless it exists. */
	public void createTableIfMissing() {
		LockTableSchema.create(this.dataSource, this.statements.dialect, this.statements.table);
	}

	/**
	 * Reads the lock table once, so that a missing table or permission fails start-up with its cause rather than
	 * the first locked call.
	 * @throws LockStoreConnectionException if the table cannot be read
	 */
	public void checkTable() {
		try {
			ping(Duration.ofSeconds(this.calls.statementTimeoutSeconds()));
		}
		catch (RuntimeException ex) {
			String refused = JdbcFailures.refusal(ex);
			if (refused == null) {
				throw new LockStoreConnectionException(databaseProduct(), "The database could not be reached: "
						+ describeFailure(ex, Duration.ofSeconds(this.calls.statementTimeoutSeconds())),
						"Check the DataSource settings (spring.datasource.*) and that the database is running.", ex);
			}
			throw new LockStoreConnectionException(databaseProduct(), "distlock cannot use its lock table '"
					+ this.statements.table + "': " + refused, this.refusals.advice(ex), ex);
		}
	}

	@Override
	public LockHandle acquire(LockRequest request) throws InterruptedException {
		if (!supports(request.mode(), request.permits() > 0)) {
			throw new UnsupportedOperationException("The JDBC lock engine has exclusive locks only, not "
					+ ((request.permits() > 0) ? "permits" : "mode = " + request.mode()) + " (lock '" + request.name()
					+ "'); use the Redis engine for read/write locks and permits");
		}
		return this.acquirer.acquire(request);
	}

	@Override
	protected EngineLocks<?> engineLocks() {
		return this.rows.held();
	}

	@Override
	public int waitingCount() {
		return this.acquirer.waitingCount();
	}

	/**
	 * Reads the lock table once (a query that finds no row), bounded by the timeout in whole seconds.
	 * @throws IllegalStateException with the database's error as its cause, if it failed
	 */
	@Override
	public Duration ping(Duration timeout) {
		long start = System.nanoTime();
		try (Connection connection = this.calls.connection();
				PreparedStatement statement = connection.prepareStatement(this.statements.ping)) {
			statement.setQueryTimeout((int) Math.max(1, (timeout.toMillis() + 999) / 1000));
			statement.setString(1, HEALTH_ID);
			try (ResultSet result = statement.executeQuery()) {
				result.next();
			}
		}
		catch (SQLException ex) {
			throw new IllegalStateException("The lock table could not be read", ex);
		}
		return Duration.ofNanos(System.nanoTime() - start);
	}

	@Override
	public String describeFailure(Throwable failure, Duration timeout) {
		String refused = JdbcFailures.refusal(failure);
		if (refused != null) {
			return this.statements.dialect.product() + " refused the statement: " + refused;
		}
		SQLException sql = JdbcFailures.sqlException(failure);
		if (sql instanceof SQLTimeoutException || (sql != null && "57014".equals(sql.getSQLState()))) {
			return this.statements.dialect.product() + " did not answer within " + timeout.toMillis() + " ms";
		}
		if (sql != null && JdbcFailures.isOutage(sql)) {
			return this.statements.dialect.product() + " could not be reached (" + sql.getClass().getSimpleName()
					+ ")";
		}
		Throwable cause = (sql != null) ? sql : failure;
		return this.statements.dialect.product() + " call failed (" + cause.getClass().getSimpleName() + ")";
	}

	@Override
	public @Nullable String standingRefusal() {
		return this.refusals.standing();
	}

	/** The database and the lock table, for health details. */
	@Override
	public Map<String, Object> storeDetails(Duration timeout) {
		Map<String, Object> details = new LinkedHashMap<>();
		details.put("database", this.statements.dialect.product());
		details.put("table", this.statements.table);
		return details;
	}

	/**
	 * Frees a lock whoever holds it. Its holder finds the lock lost at its next renewal.
	 * @return whether there was such a lock
	 */
	@Override
	public boolean forceRelease(String name, String key) {
		String lockId = LockIdentity.of(name, key);
		try {
			return this.calls.update(this.statements.forceRelease, lockId) == 1;
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Could not force the release of lock '" + name + "' for key '"
					+ DisplayedKey.of(key) + "': " + JdbcFailures.describe(ex), ex);
		}
	}

	/** Whether waiters here are woken by releases in other instances (PostgreSQL's LISTEN), not only by polling. */
	public boolean hearsReleases() {
		return this.releaseListener != null && this.releaseListener.isListening();
	}

	/** Releases by any instance heard so far (PostgreSQL), for tests. */
	long releasesHeard() {
		return (this.releaseListener != null) ? this.releaseListener.heard() : 0;
	}

	/** Stops renewing (held locks expire with their leases) and listening. */
	@Override
	public void close() {
		this.rows.close();
		this.renewer.close();
		this.cleanup.close();
		if (this.releaseListener != null) {
			this.releaseListener.close();
		}
	}

}
