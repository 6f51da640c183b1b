package io.github.distlock.jdbc;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.distlock.LockLostListener;
import io.github.distlock.LostLock;
import io.github.distlock.engine.Leases;
import io.github.distlock.engine.LockEngineStatistics;
import io.github.distlock.engine.LockRequest;
import io.github.distlock.engine.support.EngineLocks;
import io.github.distlock.engine.support.LeaseWatchdog;

/**
 * What held locks' handles ask of the table: a release, a later release, a check and an extension touch a lock's row
 * only while the row still names the acquisition's holder id. The locks themselves, their renewal and every loss
 * are kept by {@link EngineLocks}.
 */
final class HeldRows implements EngineLocks.Store<JdbcLockHandle>, AutoCloseable {

	/** Most locks one renewal statement carries: two parameters each, far below every database's limit. */
	private static final int RENEWAL_BATCH_SIZE = 4096;

	private final LockTableCalls calls;

	private final LockTableStatements statements;

	private final TableRefusals refusals;

	private final LocalReleaseSignals signals;

	private final RowCleanup cleanup;

	/** The locks this engine holds by lock id, so its own threads wait for them without asking the database. */
	private final ConcurrentHashMap<String, JdbcLockHandle> heldHere = new ConcurrentHashMap<>();

	private final EngineLocks<JdbcLockHandle> held;

	HeldRows(LockTableCalls calls, LockTableStatements statements, TableRefusals refusals, LocalReleaseSignals signals,
			RowCleanup cleanup, TableRenewer renewer, LockLostListener listener, LockEngineStatistics statistics) {
		this.calls = calls;
		this.statements = statements;
		this.refusals = refusals;
		this.signals = signals;
		this.cleanup = cleanup;
		this.held = new EngineLocks<>(JdbcLockEngine.class, statistics, listener, this,
				(lossReporter) -> new LeaseWatchdog<>("distlock-jdbc-watchdog", RENEWAL_BATCH_SIZE, renewer::renew,
						(failure) -> JdbcFailures.refusal(failure) != null, lossReporter, statistics));
	}

	/** The handle of a lock just granted, watched from now on. */
	JdbcLockHandle held(LockRequest request, String lockId, String holder, long token, long sentAt) {
		long maxDeadline = (request.maxLease() != null) ? sentAt + request.maxLease().toNanos() : Long.MAX_VALUE;
		long grantedLease = TimeUnit.MILLISECONDS.toNanos(request.initialLease().toMillis());
		JdbcLockHandle handle = new JdbcLockHandle(this, request.name(), request.key(), lockId, holder, token, sentAt,
				grantedLease, request.lease().toNanos(), request.autoRenew(), maxDeadline);
		this.heldHere.put(lockId, handle);
		this.held.hold(handle);
		return handle;
	}

	/** Whether this engine holds the lock within its lease, as far as it knows without asking the database. */
	boolean heldHere(String lockId) {
		JdbcLockHandle handle = this.heldHere.get(lockId);
		return handle != null && handle.isHeld() && System.nanoTime() - handle.leaseDeadlineNanos() < 0;
	}

	boolean release(JdbcLockHandle handle) {
		if (!this.held.beginRelease(handle)) {
			// Lost (and reported when that was found), or released before.
			return false;
		}
		int released;
		AtomicBoolean retried = new AtomicBoolean();
		try {
			released = releaseRow(handle, () -> retried.set(true));
		}
		catch (SQLException ex) {
			this.refusals.throwIfRefused(ex, "release", handle.name(), handle.key());
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
		this.held.lostAtRelease(handle, LostLock.Reason.NOT_OWNED);
		// Not ours any more, or ours but expired: then the row is of no use to anyone.
		this.cleanup.freeRowOf(handle.lockId, handle.holder);
		return false;
	}

	/**
	 * Leaves a lock its holder is done with to expire in exactly {@code ttl}: one owner-checked update of its row,
	 * which keeps naming the holder until then. Local waiters are not woken: the lock is not free yet, and they find
	 * it free at their next poll.
	 */
	boolean releaseAfter(JdbcLockHandle handle, Duration ttl) {
		Leases.requireLease(ttl, "ttl");
		if (!this.held.beginRelease(handle)) {
			return false;
		}
		boolean owned;
		try {
			// A connection that reports changed rows rather than matched ones says 0 for a row left as it was: the
			// row is asked after before that is taken for a loss.
			owned = this.calls.update(this.statements.releaseAfter, TimeUnit.MILLISECONDS.toMicros(ttl.toMillis()),
					handle.lockId, handle.holder) == 1 || owns(handle);
		}
		catch (SQLException ex) {
			this.refusals.throwIfRefused(ex, "release", handle.name(), handle.key());
			throw new IllegalStateException("Could not release " + handle + " later: the database could not be "
					+ "reached (" + JdbcFailures.describe(ex) + "); the lock expires with its lease", ex);
		}
		if (owned) {
			handle.markReleased();
			return true;
		}
		this.held.lostAtRelease(handle, LostLock.Reason.NOT_OWNED);
		return false;
	}

	private int releaseRow(JdbcLockHandle handle, Runnable onRetry) throws SQLException {
		return this.calls.onConnection((connection) -> {
			try (PreparedStatement statement = this.calls.prepare(connection, this.statements.release, handle.lockId,
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
			this.held.awaitLossReport(handle);
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
		return this.calls.onConnection((connection) -> {
			try (PreparedStatement statement = this.calls.prepare(connection, this.statements.verify, handle.lockId,
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
		EngineLocks.Extension extension = this.held.beginExtension(handle, ttl);
		if (extension == null) {
			return false;
		}
		try {
			// A row left as it was (the lease already ran longer) counts as no row on a connection that reports
			// changed rows rather than matched ones, so zero is checked before it is taken for a loss.
			long ttlMicros = TimeUnit.MILLISECONDS.toMicros(extension.ttlMillis());
			if (this.calls.update(this.statements.extend, ttlMicros, handle.lockId, handle.holder) == 1
					|| owns(handle)) {
				// Confirmed after the lease ran out, it extends nothing: the lock is lost at its deadline.
				return extension.confirmed(handle);
			}
		}
		catch (SQLException ex) {
			return false;
		}
		lost(handle, LostLock.Reason.NOT_OWNED);
		return false;
	}

	private void lost(JdbcLockHandle handle, LostLock.Reason reason) {
		this.held.lost(handle, reason);
	}

	/** No longer waited for by this engine's threads. */
	@Override
	public void forget(JdbcLockHandle handle) {
		this.heldHere.remove(handle.lockId, handle);
	}

	@Override
	public String holder(JdbcLockHandle handle) {
		return handle.holder;
	}

	EngineLocks<JdbcLockHandle> held() {
		return this.held;
	}

	/** Stops renewing: held locks expire with their leases. */
	@Override
	public void close() {
		this.held.close();
	}

}
