package io.github.distlock.jdbc;

import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;

import org.jspecify.annotations.Nullable;

import io.github.distlock.LockAcquisitionException;
import io.github.distlock.engine.DisplayedKey;
import io.github.distlock.engine.LockRequest;

/**
 * Takes locks in the table for the engine: one statement per attempt that inserts the row or takes over a free or
 * expired one, raising the fencing token in the same statement; between attempts a waiter sleeps until a release is
 * heard (this engine's own, or any instance's on PostgreSQL) or its back-off ends, from 10 ms up to the poll interval.
 * An attempt whose answer was lost is undone off the caller's thread, by its holder id.
 */
final class TableAcquirer {

	/** Pause between attempts while the database cannot be reached. */
	private static final long UNREACHABLE_BACKOFF_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

	/** The first pause of a waiter between attempts; it doubles up to the poll interval. */
	private static final long FIRST_BACKOFF_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

	/** Makes the handle of a lock just granted, and starts watching it. */
	@FunctionalInterface
	interface Grant {

		JdbcLockHandle held(LockRequest request, String lockId, String holder, long token, long sentAtNanos);

	}

	private final LockTableCalls calls;

	private final LockTableStatements statements;

	private final TableRefusals refusals;

	private final LocalReleaseSignals signals;

	/** Whether this engine holds the lock of a lock id within its lease, as far as it knows without asking. */
	private final Predicate<String> heldHere;

	private final Grant grant;

	private final long pollNanos;

	private final String engineId;

	private final AtomicLong acquisitions = new AtomicLong();

	private final AtomicInteger waiting = new AtomicInteger();

	private final RowCleanup cleanup;

	TableAcquirer(LockTableCalls calls, LockTableStatements statements, TableRefusals refusals,
			LocalReleaseSignals signals, RowCleanup cleanup, Predicate<String> heldHere, Grant grant,
			Duration pollInterval) {
		this.calls = calls;
		this.statements = statements;
		this.refusals = refusals;
		this.signals = signals;
		this.cleanup = cleanup;
		this.heldHere = heldHere;
		this.grant = grant;
		this.pollNanos = Math.max(TimeUnit.MILLISECONDS.toNanos(1), pollInterval.toNanos());
		byte[] id = new byte[8];
		new SecureRandom().nextBytes(id);
		this.engineId = HexFormat.of().formatHex(id);
	}

	JdbcLockHandle acquire(LockRequest request) throws InterruptedException {
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
				if (!this.heldHere.test(lockId)) {
					long sentAt = System.nanoTime();
					try {
						Long token = attempt(lockId, request, holder);
						this.refusals.clear();
						unreachable = null;
						if (token != null) {
							return this.grant.held(request, lockId, holder, token, sentAt);
						}
					}
					catch (SQLException ex) {
						this.refusals.throwIfRefused(ex, "acquire", request.name(), request.key());
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

	/** Threads waiting for a lock now. */
	int waitingCount() {
		return this.waiting.get();
	}

	/** An acquisition's identity in the table: never per host or thread, never reused. */
	private String newHolder() {
		return this.engineId + ":" + this.acquisitions.incrementAndGet();
	}

	/** One attempt: the token when the lock is now this holder's, null when another holds it. */
	private @Nullable Long attempt(String lockId, LockRequest request, String holder) throws SQLException {
		LockTableDialect dialect = this.statements.dialect;
		long ttlMicros = TimeUnit.MILLISECONDS.toMicros(request.initialLease().toMillis());
		Object[] parameters = dialect.acquireParameters(lockId, DisplayedKey.of(request.name()),
				DisplayedKey.of(request.key()), holder, ttlMicros);
		try (Connection connection = this.calls.connection()) {
			try (PreparedStatement statement = this.calls.prepare(connection, this.statements.acquire, parameters)) {
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
					this.cleanup.freeRowOf(lockId, holder);
				}
				throw ex;
			}
			try (PreparedStatement read = this.calls.prepare(connection, this.statements.tokenOfHolder, lockId, holder);
					ResultSet result = read.executeQuery()) {
				return result.next() ? result.getLong(1) : null;
			}
		}
	}

	/** Two acquisitions racing to insert the same new lock, or the database breaking a deadlock: the lock is busy. */
	private static boolean isContention(SQLException ex) {
		String state = String.valueOf(ex.getSQLState());
		return state.startsWith("23") || state.equals("40001") || state.equals("40P01");
	}

}
