package io.github.distlock.jdbc;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.distlock.LostLock;
import io.github.distlock.engine.HeldLockView;
import io.github.distlock.engine.Leases;
import io.github.distlock.engine.LockEngineStatistics;
import io.github.distlock.engine.LockRequest;
import io.github.distlock.engine.support.LeaseWatchdog;
import io.github.distlock.engine.support.LostLocks;

/**
 * The engine's held locks and what their handles ask of the table: each lock is watched (renewed) from its grant
 * until it is released or lost; a release, a later release, a check and an extension touch its row only while the
 * row still names the acquisition's holder id; a loss, however it is found, is reported once, and only while the
 * holder has not begun to release.
 */
final class HeldRows implements AutoCloseable {

	/** Most locks one renewal statement carries: two parameters each, far below every database's limit. */
	private static final int RENEWAL_BATCH_SIZE = 4096;

	private final LockTableCalls calls;

	private final LockTableStatements statements;

	private final TableRefusals refusals;

	private final LocalReleaseSignals signals;

	private final RowCleanup cleanup;

	private final LostLocks lostLocks;

	/** The locks this engine holds by lock id, so its own threads wait for them without asking the database. */
	private final ConcurrentHashMap<String, JdbcLockHandle> heldHere = new ConcurrentHashMap<>();

	private final LeaseWatchdog<JdbcLockHandle> watchdog;

	HeldRows(LockTableCalls calls, LockTableStatements statements, TableRefusals refusals, LocalReleaseSignals signals,
			RowCleanup cleanup, TableRenewer renewer, LostLocks lostLocks, LockEngineStatistics statistics) {
		this.calls = calls;
		this.statements = statements;
		this.refusals = refusals;
		this.signals = signals;
		this.cleanup = cleanup;
		this.lostLocks = lostLocks;
		this.watchdog = new LeaseWatchdog<>("distlock-jdbc-watchdog", RENEWAL_BATCH_SIZE, renewer::renew,
				(failure) -> JdbcFailures.refusal(failure) != null, this::lost, statistics);
	}

	/** The handle of a lock just granted, watched from now on. */
	JdbcLockHandle held(LockRequest request, String lockId, String holder, long token, long sentAt) {
		long maxDeadline = (request.maxLease() != null) ? sentAt + request.maxLease().toNanos() : Long.MAX_VALUE;
		long grantedLease = TimeUnit.MILLISECONDS.toNanos(request.initialLease().toMillis());
		JdbcLockHandle handle = new JdbcLockHandle(this, request.name(), request.key(), lockId, holder, token, sentAt,
				grantedLease, request.lease().toNanos(), request.autoRenew(), maxDeadline);
		this.heldHere.put(lockId, handle);
		this.watchdog.watch(handle);
		return handle;
	}

	/** Whether this engine holds the lock within its lease, as far as it knows without asking the database. */
	boolean heldHere(String lockId) {
		JdbcLockHandle handle = this.heldHere.get(lockId);
		return handle != null && handle.isHeld() && System.nanoTime() - handle.leaseDeadlineNanos() < 0;
	}

	boolean release(JdbcLockHandle handle) {
		if (!handle.beginRelease()) {
			// Lost (and reported when that was found), or released before.
			return false;
		}
		forget(handle);
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
		// Not ours any more, or ours but expired: then the row is of no use to anyone.
		this.cleanup.freeRowOf(handle.lockId, handle.holder);
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
		forget(handle);
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
		if (handle.markLostAtRelease(LostLock.Reason.NOT_OWNED)) {
			this.lostLocks.report(handle, LostLock.Reason.NOT_OWNED);
		}
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
			if (this.calls.update(this.statements.extend, TimeUnit.MILLISECONDS.toMicros(ttlMillis), handle.lockId,
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

	/** A loss found by renewal, a check or the lease deadline: reported only while the owner has not begun to release. */
	private void lost(JdbcLockHandle handle, LostLock.Reason reason) {
		forget(handle);
		if (handle.markLost(reason)) {
			this.lostLocks.report(handle, reason);
		}
	}

	/** No longer renewed, nor waited for by this engine's threads. */
	private void forget(JdbcLockHandle handle) {
		this.watchdog.unwatch(handle);
		this.heldHere.remove(handle.lockId, handle);
	}

	int heldCount() {
		return this.watchdog.watchedCount();
	}

	List<HeldLockView> heldLocks() {
		long now = System.nanoTime();
		return this.watchdog.watched()
			.stream()
			.filter(JdbcLockHandle::isHeld)
			.map((handle) -> handle.view(handle.holder, now))
			.toList();
	}

	Duration renewalLag() {
		return this.watchdog.renewalLag();
	}

	/** Stops renewing: held locks expire with their leases. */
	@Override
	public void close() {
		this.watchdog.close();
	}

}
