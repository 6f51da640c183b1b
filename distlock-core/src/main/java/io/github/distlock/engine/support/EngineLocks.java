package io.github.distlock.engine.support;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import io.github.distlock.LockLostListener;
import io.github.distlock.LostLock;
import io.github.distlock.engine.HeldLockView;
import io.github.distlock.engine.Leases;
import io.github.distlock.engine.LockEngineStatistics;

/**
 * The locks a leased engine holds, and the one way any of them ends: released by its owner or lost.
 * <p>
 * A lock is held from {@link #hold} until its owner's release begins ({@link #beginRelease}) or it is found lost
 * ({@link #lost}), whichever comes first; the {@link LeaseWatchdog} renews it meanwhile. A loss, whoever finds it
 * (the watchdog, a watch in the store, a check, an extension, the release itself), is marked on the handle and told
 * to the application once, with its reason, through {@link LostLocks}, under the handle's reporting lock: a thread
 * that finds the lock already lost waits for that report before it answers ({@link #awaitLossReport}). Only then
 * does the engine clean up in its store ({@link Store#afterLoss}): freeing the lock there hands it to the next
 * waiter, who must not enter while the holder has not been told.
 * <p>
 * Also the engine's counts for operators: held locks, renewal lag and statistics.
 * @param <H> the engine's handle
 */
public final class EngineLocks<H extends LeasedLockHandle> implements AutoCloseable {

	private static final Log logger = LogFactory.getLog(EngineLocks.class);

	private final Store<H> store;

	private final LostLocks lostLocks;

	private final LockEngineStatistics statistics;

	private final LeaseWatchdog<H> watchdog;

	/**
	 * @param engine the engine, whose log the loss warnings go to
	 * @param statistics where renewals and losses are counted
	 * @param listener the application's listener
	 * @param store what the engine does in its store when a lock ends
	 * @param watchdog makes the watchdog that renews the locks, given where it reports a loss
	 */
	public EngineLocks(Class<?> engine, LockEngineStatistics statistics, LockLostListener listener, Store<H> store,
			Function<LeaseWatchdog.LossReporter<H>, LeaseWatchdog<H>> watchdog) {
		this.store = store;
		this.statistics = statistics;
		this.lostLocks = new LostLocks(engine, statistics, listener);
		this.watchdog = watchdog.apply(this::lost);
	}

	/** Holds a lock just granted: renewed from now on. */
	public void hold(H handle) {
		this.watchdog.watch(handle);
	}

	/**
	 * Starts the owner's release: the lock is no longer renewed, and nothing the store answers about it from now on
	 * counts as a loss, except what the release itself finds ({@link #lostAtRelease}).
	 * @return false when the lock is not held (already lost, and then reported before this returns, or released)
	 */
	public boolean beginRelease(H handle) {
		if (!handle.beginRelease()) {
			handle.awaitLossReport();
			return false;
		}
		forget(handle);
		return true;
	}

	/**
	 * A held lock found lost: no longer renewed; marked lost and told once, on the first call; then cleaned up in the
	 * store. A lock its owner is releasing is left alone: what the store says of it now is the release's doing. Should
	 * another thread be reporting the loss, this call returns once it has.
	 */
	public void lost(H handle, LostLock.Reason reason) {
		forget(handle);
		if (handle.lose(reason, () -> tell(handle, reason))) {
			this.store.afterLoss(handle, reason);
		}
		else {
			handle.awaitLossReport();
		}
	}

	/** The owner's release found the lock no longer its own: lost while the work ran, and told so once. */
	public void lostAtRelease(H handle, LostLock.Reason reason) {
		if (!handle.loseAtRelease(reason, () -> tell(handle, reason))) {
			handle.awaitLossReport();
		}
	}

	/** Tells, now, of a loss whose report the store held back when it was found ({@link Store#toldNow}). */
	public void tellHeldBack(H handle) {
		LostLock.Reason reason = handle.lossReason();
		this.lostLocks.report(handle, (reason != null) ? reason : LostLock.Reason.NOT_OWNED);
	}

	/**
	 * Starts the holder's extension of a lock by {@code ttl}: validated, and cut to what {@code maxLease} leaves.
	 * @return what to ask the store for, or null when nothing is to be extended: the lock is not held (if it is lost,
	 * this returns once that has been told), or {@code maxLease} leaves no room
	 * @throws IllegalArgumentException if {@code ttl} is no lease (see {@link Leases#requireLease})
	 */
	public @Nullable Extension beginExtension(H handle, Duration ttl) {
		Leases.requireLease(ttl, "ttl");
		if (!handle.isHeld()) {
			handle.awaitLossReport();
			return null;
		}
		long sentAt = System.nanoTime();
		long ttlMillis = handle.ttlMillisFrom(sentAt, ttl.toNanos());
		return (ttlMillis < 1) ? null : new Extension(sentAt, ttlMillis);
	}

	/** Waits, if the lock is lost, until its loss has been told, so that an answer "not held" never comes first. */
	public void awaitLossReport(H handle) {
		handle.awaitLossReport();
	}

	private void tell(H handle, LostLock.Reason reason) {
		if (this.store.toldNow(handle)) {
			this.lostLocks.report(handle, reason);
		}
		else {
			logger.debug("Lost " + handle + " (" + reason + "), not told now: " + this.store.whyNotTold());
		}
	}

	/** No longer renewed, nor known to the engine's own lookups. */
	private void forget(H handle) {
		this.watchdog.unwatch(handle);
		this.store.forget(handle);
	}

	/** The locks held now. */
	public List<H> all() {
		return this.watchdog.watched();
	}

	/** Locks held now. */
	public int heldCount() {
		return this.watchdog.watchedCount();
	}

	/** How late the most overdue renewal is. */
	public Duration renewalLag() {
		return this.watchdog.renewalLag();
	}

	/** Running counts of renewals, refusals and losses. */
	public LockEngineStatistics statistics() {
		return this.statistics;
	}

	/** A snapshot of the locks held now, each with the holder id its store keeps. */
	public List<HeldLockView> views() {
		long now = System.nanoTime();
		return all().stream()
			.filter(LeasedLockHandle::isHeld)
			.map((handle) -> handle.view(this.store.holder(handle), now))
			.toList();
	}

	/** Stops renewing: locks still held expire with their leases, or as the store ends them. */
	@Override
	public void close() {
		this.watchdog.close();
	}

	/**
	 * An extension on its way: sent at {@code sentAtNanos}, asking for {@code ttlMillis} more.
	 * @param sentAtNanos when the request was sent, from which the store counts the time to live
	 * @param ttlMillis the time to live to ask the store for
	 */
	public record Extension(long sentAtNanos, long ttlMillis) {

		/**
		 * Records the extension, confirmed now by the store (see {@link LeasedLockHandle#extended}).
		 * @return false when the confirmation came after the lease ran out: it extends nothing then
		 */
		public boolean confirmed(LeasedLockHandle handle) {
			return handle.extended(this.sentAtNanos, TimeUnit.MILLISECONDS.toNanos(this.ttlMillis));
		}

	}

	/** What an engine keeps and does in its store as its locks end. */
	public interface Store<H> {

		/** The holder id the store keeps for the lock, as operators see it. */
		String holder(H handle);

		/** Drops what the engine's own lookups keep of a lock released or lost (nothing, by default). */
		default void forget(H handle) {
		}

		/**
		 * Cleans up the store once a lost lock's holder has been told: a lock still there (its lease ran out by the
		 * holder's clock, the store unreachable) is freed, so that the next waiter gets it (nothing, by default).
		 */
		default void afterLoss(H handle, LostLock.Reason reason) {
		}

		/**
		 * Whether the application hears of this loss now: false while the caller does not have the lock yet (a grant
		 * held back for the replicas' acknowledgement, told at the hand-out with {@link EngineLocks#tellHeldBack}), or
		 * for an engine whose locks are parts of another's, which judges and tells their loss itself.
		 */
		default boolean toldNow(H handle) {
			return true;
		}

		/** Said in the debug log when a loss is not told now. */
		default String whyNotTold() {
			return "its report is held back";
		}

	}

}
