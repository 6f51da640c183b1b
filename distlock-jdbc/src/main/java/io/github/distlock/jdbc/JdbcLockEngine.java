package io.github.distlock.jdbc;

import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import javax.sql.DataSource;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import io.github.distlock.LockAcquisitionException;
import io.github.distlock.LockLostListener;
import io.github.distlock.LockStoreConnectionException;
import io.github.distlock.LockStoreException;
import io.github.distlock.LostLock;
import io.github.distlock.engine.CheckableLockEngine;
import io.github.distlock.engine.DisplayedKey;
import io.github.distlock.engine.ForceReleasableLockEngine;
import io.github.distlock.engine.HeldLockView;
import io.github.distlock.engine.Leases;
import io.github.distlock.engine.LockEngineStatistics;
import io.github.distlock.engine.LockHandle;
import io.github.distlock.engine.LockRequest;
import io.github.distlock.engine.ObservableLockEngine;
import io.github.distlock.engine.support.LeaseWatchdog;
import io.github.distlock.engine.support.LeasedLockHandle;
import io.github.distlock.engine.support.LostLocks;

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
public final class JdbcLockEngine
		implements ObservableLockEngine, CheckableLockEngine, ForceReleasableLockEngine, AutoCloseable {

	/** The lock table's name unless another is given. */
	public static final String DEFAULT_TABLE = "distlock_locks";

	/** How often a waiter asks the table again, unless it is woken by a release in this engine. */
	public static final Duration DEFAULT_POLL_INTERVAL = Duration.ofMillis(100);

	/** The longest one statement may take, unless another is given. */
	public static final Duration DEFAULT_STATEMENT_TIMEOUT = Duration.ofSeconds(5);

	private static final Log logger = LogFactory.getLog(JdbcLockEngine.class);

	/** Most locks one renewal statement carries: two parameters each, far below every database's limit. */
	private static final int RENEWAL_BATCH_SIZE = 4096;

	/** Pause between attempts while the database cannot be reached. */
	private static final long UNREACHABLE_BACKOFF_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

	/** The PostgreSQL channel releases are announced on. */
	static final String RELEASE_CHANNEL = "distlock_released";

	/** The first pause of a waiter between attempts; it doubles up to the poll interval. */
	private static final long FIRST_BACKOFF_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

	/** The lock id the health check reads: no lock has it (ids are 64 hex digits). */
	private static final String HEALTH_ID = "distlock-health-check";

	/**
	 * How many pooled connections a statement tries when the database has closed them: a few, since each dead one
	 * fails at once and is dropped by the pool, and the watchdog's next tick tries as many again.
	 */
	private static final int BROKEN_CONNECTION_ATTEMPTS = 5;

	private final DataSource dataSource;

	private final LockTableStatements statements;

	private final int statementTimeoutSeconds;

	private final long pollNanos;

	private final LostLocks lostLocks;

	private final String engineId;

	private final AtomicLong acquisitions = new AtomicLong();

	private final AtomicInteger waiting = new AtomicInteger();

	private final LockEngineStatistics statistics = new LockEngineStatistics();

	private final LocalReleaseSignals signals = new LocalReleaseSignals();

	/** The locks this engine holds by lock id, so its own threads wait for them without asking the database. */
	private final ConcurrentHashMap<String, JdbcLockHandle> heldHere = new ConcurrentHashMap<>();

	private final LeaseWatchdog<JdbcLockHandle> watchdog;

	/** On PostgreSQL with its driver: hears releases by every instance. Otherwise null, and waiters poll. */
	private final PostgreSqlReleaseListener.@Nullable Subscription releaseListener;

	/**
	 * Frees locks an unanswered statement may have taken, off the caller's thread: a database slow enough to lose
	 * one answer would make the caller wait a second statement timeout past its wait.
	 */
	private final ExecutorService cleanup = Executors.newSingleThreadExecutor((task) -> {
		Thread thread = new Thread(task, "distlock-jdbc-cleanup");
		thread.setDaemon(true);
		return thread;
	});

	/**
	 * Runs the watchdog's renewals, so that the watchdog goes on (and reports leases that run out) while one waits
	 * for a pooled connection or for the database.
	 */
	private final ExecutorService renewals = Executors.newSingleThreadExecutor((task) -> {
		Thread thread = new Thread(task, "distlock-jdbc-renewal");
		thread.setDaemon(true);
		return thread;
	});

	/** The database's words for the last lock statement it refused, until one succeeds. */
	private volatile @Nullable String refusal;

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
		this.statementTimeoutSeconds = (int) Math.max(1, (statementTimeout.toMillis() + 999) / 1000);
		this.pollNanos = Math.max(TimeUnit.MILLISECONDS.toNanos(1), pollInterval.toNanos());
		this.lostLocks = new LostLocks(JdbcLockEngine.class, this.statistics,
				Objects.requireNonNull(lostListener, "lostListener"));
		LockTableDialect dialect = dialect(dataSource);
		boolean notifies = dialect == LockTableDialect.POSTGRESQL && PostgreSqlReleaseListener.isAvailable();
		this.statements = new LockTableStatements(dialect, LockTableStatements.requireTableName(table),
				notifies ? RELEASE_CHANNEL : null);
		byte[] id = new byte[8];
		new SecureRandom().nextBytes(id);
		this.engineId = HexFormat.of().formatHex(id);
		this.watchdog = new LeaseWatchdog<>("distlock-jdbc-watchdog", RENEWAL_BATCH_SIZE, this::renew,
				(failure) -> JdbcFailures.refusal(failure) != null, this::lost, this.statistics);
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
			ping(Duration.ofSeconds(this.statementTimeoutSeconds));
		}
		catch (RuntimeException ex) {
			String refused = JdbcFailures.refusal(ex);
			if (refused == null) {
				throw new LockStoreConnectionException(databaseProduct(), "The database could not be reached: "
						+ describeFailure(ex, Duration.ofSeconds(this.statementTimeoutSeconds)),
						"Check the DataSource settings (spring.datasource.*) and that the database is running.", ex);
			}
			throw new LockStoreConnectionException(databaseProduct(), "distlock cannot use its lock table '"
					+ this.statements.table + "': " + refused, advice(ex), ex);
		}
	}

	private String advice(Throwable failure) {
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

	@Override
	public LockHandle acquire(LockRequest request) throws InterruptedException {
		if (!supports(request.mode(), request.permits() > 0)) {
			throw new UnsupportedOperationException("The JDBC lock engine has exclusive locks only, not "
					+ ((request.permits() > 0) ? "permits" : "mode = " + request.mode()) + " (lock '" + request.name()
					+ "'); use the Redis engine for read/write locks and permits");
		}
		String lockId = LockIdentity.of(request.name(), request.key());
		String holder = newHolder();
		long start = System.nanoTime();
		long deadline = start + request.waitTime().toNanos();
		// Registered before the first attempt, so a release between that attempt and the wait still wakes it.
		LocalReleaseSignals.Waiter waiter = request.waitTime().isZero() ? null : this.signals.open(lockId);
		SQLException unreachable = null;
		long backoff = FIRST_BACKOFF_NANOS;
		boolean counted = false;
		try {
			if (waiter != null && !waiter.awaitTurn(0)) {
				this.waiting.incrementAndGet();
				counted = true;
				if (!waiter.awaitTurn(deadline - System.nanoTime())) {
					// Threads of this engine ahead in line had the first claim all along.
					throw new LockAcquisitionException(request.name(), request.key(),
							Duration.ofNanos(System.nanoTime() - start), null);
				}
			}
			while (true) {
				if (!heldHere(lockId)) {
					long sentAt = System.nanoTime();
					try {
						Long token = attempt(lockId, request, holder);
						this.refusal = null;
						unreachable = null;
						if (token != null) {
							return held(request, lockId, holder, token, sentAt);
						}
					}
					catch (SQLException ex) {
						throwIfRefused(ex, "acquire", request.name(), request.key());
						if (!isContention(ex)) {
							unreachable = ex;
							// The unanswered attempt is being undone off this thread by holder id: the next attempt
							// must not be that holder, or the undoing could free the lock it takes.
							holder = newHolder();
						}
					}
				}
				long remaining = deadline - System.nanoTime();
				if (remaining <= 0 || waiter == null) {
					throw new LockAcquisitionException(request.name(), request.key(),
							Duration.ofNanos(System.nanoTime() - start), unreachable);
				}
				if (!counted) {
					this.waiting.incrementAndGet();
					counted = true;
				}
				long pause = (unreachable != null) ? UNREACHABLE_BACKOFF_NANOS : backoff;
				if (waiter.await(Math.min(remaining, pause))) {
					// A release was heard: the next wait starts short again.
					backoff = FIRST_BACKOFF_NANOS;
				}
				else {
					backoff = Math.min(backoff * 2, this.pollNanos);
				}
			}
		}
		finally {
			if (waiter != null) {
				waiter.close();
			}
			if (counted) {
				this.waiting.decrementAndGet();
			}
		}
	}

	/** An acquisition's identity in the table: never per host or thread, never reused. */
	private String newHolder() {
		return this.engineId + ":" + this.acquisitions.incrementAndGet();
	}

	/** Whether this engine holds the lock within its lease, as far as it knows without asking the database. */
	private boolean heldHere(String lockId) {
		JdbcLockHandle handle = this.heldHere.get(lockId);
		return handle != null && handle.isHeld() && System.nanoTime() - handle.leaseDeadlineNanos() < 0;
	}

	/** One attempt: the token when the lock is now this holder's, null when another holds it. */
	private @Nullable Long attempt(String lockId, LockRequest request, String holder) throws SQLException {
		LockTableDialect dialect = this.statements.dialect;
		long ttlMicros = TimeUnit.MILLISECONDS.toMicros(request.initialLease().toMillis());
		Object[] parameters = dialect.acquireParameters(lockId, DisplayedKey.of(request.name()),
				DisplayedKey.of(request.key()), holder, ttlMicros);
		try (Connection connection = connection()) {
			try (PreparedStatement statement = prepare(connection, this.statements.acquire, parameters)) {
				if (dialect.acquireReturnsToken()) {
					try (ResultSet result = statement.executeQuery()) {
						return result.next() ? result.getLong(1) : null;
					}
				}
				statement.executeUpdate();
			}
			catch (SQLException ex) {
				if (!isContention(ex)) {
					// The statement may have taken the lock before the answer was lost: free it if it is ours.
					releaseQuietly(lockId, holder);
				}
				throw ex;
			}
			try (PreparedStatement read = prepare(connection, this.statements.tokenOfHolder, lockId, holder);
					ResultSet result = read.executeQuery()) {
				return result.next() ? result.getLong(1) : null;
			}
		}
	}

	private JdbcLockHandle held(LockRequest request, String lockId, String holder, long token, long sentAt) {
		long maxDeadline = (request.maxLease() != null) ? sentAt + request.maxLease().toNanos() : Long.MAX_VALUE;
		long grantedLease = TimeUnit.MILLISECONDS.toNanos(request.initialLease().toMillis());
		JdbcLockHandle handle = new JdbcLockHandle(this, request.name(), request.key(), lockId, holder, token, sentAt,
				grantedLease, request.lease().toNanos(), request.autoRenew(), maxDeadline);
		this.heldHere.put(lockId, handle);
		this.watchdog.watch(handle);
		return handle;
	}

	/** Two acquisitions racing to insert the same new lock, or the database breaking a deadlock: the lock is busy. */
	private static boolean isContention(SQLException ex) {
		String state = String.valueOf(ex.getSQLState());
		return state.startsWith("23") || state.equals("40001") || state.equals("40P01");
	}

	/** A refusal (no table, no permission, read-only) ends the call at once: waiting will not cure it. */
	private void throwIfRefused(SQLException ex, String action, String name, String key) {
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

	private void releaseQuietly(String lockId, String holder) {
		try {
			this.cleanup.execute(() -> {
				try (Connection connection = connection();
						PreparedStatement statement = prepare(connection, this.statements.releaseExpired, lockId,
								holder)) {
					statement.executeUpdate();
				}
				catch (SQLException ex) {
					// Unreachable: if the lock was taken, it expires with its lease.
				}
			});
		}
		catch (RejectedExecutionException ex) {
			// The engine is closed (a release after shutdown): the row expires with its lease.
		}
	}

	boolean release(JdbcLockHandle handle) {
		if (!handle.beginRelease()) {
			// Lost (and reported when that was found), or released before.
			return false;
		}
		this.watchdog.unwatch(handle);
		this.heldHere.remove(handle.lockId, handle);
		int released;
		AtomicBoolean retried = new AtomicBoolean();
		try {
			released = releaseRow(handle, () -> retried.set(true));
		}
		catch (SQLException ex) {
			throwIfRefused(ex, "release", handle.name(), handle.key());
			throw new IllegalStateException("Could not release " + handle + ": the database could not be reached ("
					+ JdbcFailures.describe(ex) + "); the lock expires with its lease", ex);
		}
		finally {
			this.signals.released(handle.lockId);
		}
		if (released == 1 || (retried.get() && System.nanoTime() - handle.leaseDeadlineNanos() < 0)) {
			// After a broken connection, a row no longer ours within the lease is the first try's doing: its answer
			// was lost, and no one else could take the lock before the lease ran out.
			handle.markReleased();
			return true;
		}
		// Not ours any more, or ours but expired: then the row is of no use to anyone.
		releaseQuietly(handle.lockId, handle.holder);
		if (handle.markLostAtRelease(LostLock.Reason.NOT_OWNED)) {
			this.lostLocks.report(handle, LostLock.Reason.NOT_OWNED);
		}
		return false;
	}

	/**
	 * Leaves a lock its holder is done with to expire in exactly {@code ttl}: one owner-checked update of its row,
	 * which keeps naming the holder until then. Local waiters are not woken: the lock is not free yet, and they find
	 * it free at their next poll.
	 */
	boolean releaseAfter(JdbcLockHandle handle, Duration ttl) {
		Leases.requireLease(ttl, "ttl");
		if (!handle.beginRelease()) {
			return false;
		}
		this.watchdog.unwatch(handle);
		this.heldHere.remove(handle.lockId, handle);
		boolean owned;
		try {
			// A connection that reports changed rows rather than matched ones says 0 for a row left as it was: the
			// row is asked after before that is taken for a loss.
			owned = update(this.statements.releaseAfter, TimeUnit.MILLISECONDS.toMicros(ttl.toMillis()),
					handle.lockId, handle.holder) == 1 || owns(handle);
		}
		catch (SQLException ex) {
			throwIfRefused(ex, "release", handle.name(), handle.key());
			throw new IllegalStateException("Could not release " + handle + " later: the database could not be "
					+ "reached (" + JdbcFailures.describe(ex) + "); the lock expires with its lease", ex);
		}
		if (owned) {
			handle.markReleased();
			return true;
		}
		if (handle.markLostAtRelease(LostLock.Reason.NOT_OWNED)) {
			this.lostLocks.report(handle, LostLock.Reason.NOT_OWNED);
		}
		return false;
	}

	private int releaseRow(JdbcLockHandle handle, Runnable onRetry) throws SQLException {
		return onConnection((connection) -> {
			try (PreparedStatement statement = prepare(connection, this.statements.release, handle.lockId,
					handle.holder)) {
				if (!this.statements.releaseIsQuery) {
					return statement.executeUpdate();
				}
				try (ResultSet result = statement.executeQuery()) {
					int rows = 0;
					while (result.next()) {
						rows++;
					}
					return rows;
				}
			}
		}, onRetry);
	}

	boolean verify(JdbcLockHandle handle) {
		if (!handle.isHeld()) {
			return false;
		}
		long sentAt = System.nanoTime();
		boolean owned;
		try {
			owned = owns(handle);
		}
		catch (SQLException ex) {
			if (sentAt - handle.leaseDeadlineNanos() < 0) {
				// Unconfirmed, but the lease granted earlier still runs: nobody else can hold the lock yet.
				return true;
			}
			lost(handle, (JdbcFailures.refusal(ex) != null) ? LostLock.Reason.STORE_REFUSED
					: LostLock.Reason.STORE_UNREACHABLE);
			return false;
		}
		if (owned) {
			return true;
		}
		lost(handle, LostLock.Reason.NOT_OWNED);
		return false;
	}

	private boolean owns(JdbcLockHandle handle) throws SQLException {
		return onConnection((connection) -> {
			try (PreparedStatement statement = prepare(connection, this.statements.verify, handle.lockId,
					handle.holder); ResultSet result = statement.executeQuery()) {
				return result.next() && result.getLong(1) == 1L;
			}
		});
	}

	/**
	 * Extends a lease on its holder's request, never shortening it. A lock found not ours is lost (and reported
	 * only while the owner is not releasing it); an unreachable database extends nothing and loses nothing.
	 */
	boolean extend(JdbcLockHandle handle, Duration ttl) {
		Leases.requireLease(ttl, "ttl");
		if (!handle.isHeld()) {
			return false;
		}
		long sentAt = System.nanoTime();
		long ttlMillis = handle.ttlMillisFrom(sentAt, ttl.toNanos());
		if (ttlMillis < 1) {
			return false;
		}
		try {
			// A row left as it was (the lease already ran longer) counts as no row on a connection that reports
			// changed rows rather than matched ones, so zero is checked before it is taken for a loss.
			if (update(this.statements.extend, TimeUnit.MILLISECONDS.toMicros(ttlMillis), handle.lockId,
					handle.holder) == 1 || owns(handle)) {
				// Confirmed after the lease ran out, it extends nothing: the lock is lost at its deadline.
				return handle.extended(sentAt, TimeUnit.MILLISECONDS.toNanos(ttlMillis));
			}
		}
		catch (SQLException ex) {
			return false;
		}
		lost(handle, LostLock.Reason.NOT_OWNED);
		return false;
	}

	/**
	 * The watchdog's renewal of a batch, run on the renewal thread; it gives up waiting for a pooled connection when
	 * the earliest lease in the batch runs out (see {@link PooledRenewal}).
	 */
	private CompletionStage<List<Boolean>> renew(List<JdbcLockHandle> handles, List<Long> ttlMillis) {
		long now = System.nanoTime();
		long patience = LeasedLockHandle.patienceNanos(handles, now, Long.MAX_VALUE);
		PooledRenewal renewal = new PooledRenewal(now + patience);
		try {
			this.renewals.execute(() -> renewNow(handles, ttlMillis, renewal));
		}
		catch (RejectedExecutionException closed) {
			return CompletableFuture.failedFuture(closed);
		}
		// Run by the JDK's delay thread itself, not the common pool, which the application's own work may keep busy.
		CompletableFuture.delayedExecutor(patience, TimeUnit.NANOSECONDS, Runnable::run)
			.execute(renewal::giveUpUnlessSent);
		return renewal.answer();
	}

	/**
	 * Renews a batch in as few statements as there are distinct times to live (one, unless some locks near their
	 * {@code maxLease}); a statement that matched fewer rows than it named is followed by a read of which ones.
	 */
	private void renewNow(List<JdbcLockHandle> handles, List<Long> ttlMillis, PooledRenewal renewal) {
		Map<Long, List<Integer>> byTtl = new LinkedHashMap<>();
		for (int i = 0; i < handles.size(); i++) {
			byTtl.computeIfAbsent(ttlMillis.get(i), (ttl) -> new ArrayList<>()).add(i);
		}
		Boolean[] renewed = new Boolean[handles.size()];
		try {
			// Renewing twice is harmless: each statement sets the lease from the database's now.
			boolean sent = onConnection((connection) -> {
				if (!renewal.send()) {
					return false;
				}
				for (Map.Entry<Long, List<Integer>> group : byTtl.entrySet()) {
					renewGroup(connection, handles, group.getKey(), group.getValue(), renewed);
				}
				return true;
			});
			if (!sent) {
				return;
			}
		}
		catch (SQLException ex) {
			renewalRefusal(ex, handles.size());
			renewal.answer().completeExceptionally(ex);
			return;
		}
		catch (RuntimeException ex) {
			renewal.answer().completeExceptionally(ex);
			return;
		}
		this.refusal = null;
		renewal.answer().complete(Arrays.asList(renewed));
	}

	private void renewGroup(Connection connection, List<JdbcLockHandle> handles, long ttlMillis,
			List<Integer> indexes, Boolean[] renewed) throws SQLException {
		int count = indexes.size();
		Object[] parameters = new Object[1 + 2 * count];
		parameters[0] = TimeUnit.MILLISECONDS.toMicros(ttlMillis);
		Object[] ids = idsAndHolders(handles, indexes);
		System.arraycopy(ids, 0, parameters, 1, ids.length);
		int updated;
		try (PreparedStatement statement = prepare(connection, this.statements.renew(count), parameters)) {
			updated = statement.executeUpdate();
		}
		if (updated == count) {
			indexes.forEach((i) -> renewed[i] = true);
			return;
		}
		Set<String> owned = new HashSet<>();
		try (PreparedStatement statement = prepare(connection, this.statements.owned(count), ids);
				ResultSet result = statement.executeQuery()) {
			while (result.next()) {
				owned.add(result.getString(1));
			}
		}
		indexes.forEach((i) -> renewed[i] = owned.contains(handles.get(i).holder));
	}

	private static Object[] idsAndHolders(List<JdbcLockHandle> handles, List<Integer> indexes) {
		Object[] values = new Object[2 * indexes.size()];
		for (int i = 0; i < indexes.size(); i++) {
			JdbcLockHandle handle = handles.get(indexes.get(i));
			values[i] = handle.lockId;
			values[indexes.size() + i] = handle.holder;
		}
		return values;
	}

	/** Says once per refusal (until a statement succeeds) that the database refuses to renew: locks will be lost. */
	private void renewalRefusal(SQLException failure, int locks) {
		String refused = JdbcFailures.refusal(failure);
		if (refused != null && !refused.equals(this.refusal)) {
			this.statistics.countRefusal();
			logger.warn(this.statements.dialect.product() + " refused to renew " + locks + " held lock(s): " + refused
					+ ". " + advice(failure) + " Held locks will be lost when their leases run out.");
		}
		if (refused != null) {
			this.refusal = refused;
		}
	}

	/** A loss found by renewal, a check or the lease deadline: reported only while the owner has not begun to release. */
	private void lost(JdbcLockHandle handle, LostLock.Reason reason) {
		this.watchdog.unwatch(handle);
		this.heldHere.remove(handle.lockId, handle);
		if (handle.markLost(reason)) {
			this.lostLocks.report(handle, reason);
		}
	}

	/** Work on one pooled connection. */
	@FunctionalInterface
	private interface SqlWork<T> {

		T run(Connection connection) throws SQLException;

	}

	/**
	 * Runs work on a pooled connection, and again on another when the database had closed that one (a failover, a
	 * restart, an operator ending sessions): the pool hands out connections it has not checked for a while, so after
	 * such an event several may be dead, and one dead connection must not cost a renewal, hence a lock. Only for
	 * statements that may run twice; a failure to get a connection, or a timeout, is not retried.
	 * @param onRetry told before each further try
	 */
	private <T> T onConnection(SqlWork<T> work, Runnable onRetry) throws SQLException {
		for (int attempt = 1;; attempt++) {
			Connection connection = connection();
			try (connection) {
				return work.run(connection);
			}
			catch (SQLException ex) {
				if (attempt == BROKEN_CONNECTION_ATTEMPTS || !JdbcFailures.isBrokenConnection(ex)) {
					throw ex;
				}
				onRetry.run();
			}
		}
	}

	private <T> T onConnection(SqlWork<T> work) throws SQLException {
		return onConnection(work, () -> {
		});
	}

	private Connection connection() throws SQLException {
		Connection connection = this.dataSource.getConnection();
		try {
			if (!connection.getAutoCommit()) {
				// A lock must be visible to other instances the moment it is taken, whatever the pool's default.
				connection.setAutoCommit(true);
			}
			return connection;
		}
		catch (SQLException ex) {
			connection.close();
			throw ex;
		}
	}

	private PreparedStatement prepare(Connection connection, String sql, Object... parameters) throws SQLException {
		PreparedStatement statement = connection.prepareStatement(sql);
		try {
			statement.setQueryTimeout(this.statementTimeoutSeconds);
			for (int i = 0; i < parameters.length; i++) {
				if (parameters[i] instanceof Long value) {
					statement.setLong(i + 1, value);
				}
				else {
					statement.setString(i + 1, (String) parameters[i]);
				}
			}
			return statement;
		}
		catch (SQLException ex) {
			statement.close();
			throw ex;
		}
	}

	private int update(String sql, Object... parameters) throws SQLException {
		return onConnection((connection) -> {
			try (PreparedStatement statement = prepare(connection, sql, parameters)) {
				return statement.executeUpdate();
			}
		});
	}

	@Override
	public int heldCount() {
		return this.watchdog.watchedCount();
	}

	@Override
	public List<HeldLockView> heldLocks() {
		long now = System.nanoTime();
		return this.watchdog.watched()
			.stream()
			.filter(JdbcLockHandle::isHeld)
			.map((handle) -> handle.view(handle.holder, now))
			.toList();
	}

	@Override
	public int waitingCount() {
		return this.waiting.get();
	}

	@Override
	public Duration renewalLag() {
		return this.watchdog.renewalLag();
	}

	@Override
	public LockEngineStatistics statistics() {
		return this.statistics;
	}

	/**
	 * Reads the lock table once (a query that finds no row), bounded by the timeout in whole seconds.
	 * @throws IllegalStateException with the database's error as its cause, if it failed
	 */
	@Override
	public Duration ping(Duration timeout) {
		long start = System.nanoTime();
		try (Connection connection = connection();
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
		String refused = this.refusal;
		return (refused != null) ? this.statements.dialect.product() + " refuses distlock's lock statements: "
				+ refused : null;
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
			return update(this.statements.forceRelease, lockId) == 1;
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
		this.watchdog.close();
		this.renewals.shutdownNow();
		// Frees what it was asked to free, then ends; a lock left behind expires with its lease anyway.
		this.cleanup.shutdown();
		if (this.releaseListener != null) {
			this.releaseListener.close();
		}
	}

}
