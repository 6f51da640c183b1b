package io.github.distlock.engine.support;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import io.github.distlock.LostLock;
import io.github.distlock.engine.LockEngineStatistics;

/**
 * Keeps held locks alive and notices when they are not.
 * <p>
 * One thread serves every lock of an engine. It wakes when the earliest lock needs attention (a third of its lease
 * after its last renewal) and then renews, in one round trip, every lock whose renewal is due, and with them every
 * other lock it holds: a lock renewed a little early costs one more command inside a call that goes out anyway,
 * while leaving it for later would give it a renewal time of its own and so one more round trip per interval. All
 * locks thus share one renewal cadence, and the cost in round trips per tick does not grow with the number of locks
 * or with how their acquisitions were spread. A lock whose lease deadline passes without a confirmed renewal is
 * declared lost; so is a lock that was not to be renewed and outlives its lease.
 * <p>
 * For engines: the handles are {@link LeasedLockHandle}s, and the engine says how a batch is renewed in its store.
 */
public final class LeaseWatchdog<H extends LeasedLockHandle> implements AutoCloseable {

	private final int batchSize;

	private final Predicate<Throwable> refusal;

	private final Set<H> watched = ConcurrentHashMap.newKeySet();

	private final ScheduledExecutorService scheduler;

	private final Renewer<H> renewer;

	private final LossReporter<H> lossReporter;

	private final LockEngineStatistics statistics;

	private ScheduledFuture<?> pending;

	private long pendingAtNanos = Long.MAX_VALUE;

	/**
	 * @param threadName the name of the watchdog's thread
	 * @param batchSize the most locks one renewal call carries; more are split into calls sent together
	 * @param renewer renews a batch in the store
	 * @param refusal whether a failed renewal was refused by the store (rather than unanswered), which names the
	 * loss if the lease runs out
	 * @param lossReporter told of each lock found lost, once
	 * @param statistics where renewals are counted
	 */
	public LeaseWatchdog(String threadName, int batchSize, Renewer<H> renewer, Predicate<Throwable> refusal,
			LossReporter<H> lossReporter, LockEngineStatistics statistics) {
		this.batchSize = batchSize;
		this.refusal = refusal;
		this.renewer = renewer;
		this.lossReporter = lossReporter;
		this.statistics = statistics;
		this.scheduler = Executors.newSingleThreadScheduledExecutor((runnable) -> {
			Thread thread = new Thread(runnable, threadName);
			thread.setDaemon(true);
			return thread;
		});
	}

	/** Starts renewing a lock just acquired. */
	public void watch(H handle) {
		this.watched.add(handle);
		wakeBy(nextAttention(handle));
	}

	/** Stops renewing a lock: its owner releases it, or it was found lost. */
	public void unwatch(H handle) {
		this.watched.remove(handle);
	}

	/** How many locks are watched: every lock the engine holds. */
	public int watchedCount() {
		return this.watched.size();
	}

	/** The locks being watched now: every lock the engine holds. */
	public List<H> watched() {
		return List.copyOf(this.watched);
	}

	/** How late the most overdue renewal is now (zero when the watchdog keeps up). */
	public long renewalLagNanos() {
		long now = System.nanoTime();
		long lag = 0;
		for (H handle : this.watched) {
			if (!handle.renewalEnded()) {
				lag = Math.max(lag, now - (handle.renewedAtNanos + handle.leaseNanos() / 3));
			}
		}
		return lag;
	}

	private synchronized void wakeBy(long atNanos) {
		if (this.pending != null && this.pendingAtNanos <= atNanos) {
			return;
		}
		if (this.pending != null) {
			this.pending.cancel(false);
		}
		this.pendingAtNanos = atNanos;
		long delay = Math.max(0, atNanos - System.nanoTime());
		this.pending = this.scheduler.schedule(this::tick, delay, TimeUnit.NANOSECONDS);
	}

	private void tick() {
		synchronized (this) {
			// A watch() from now on schedules its own wake-up instead of relying on this scan.
			this.pending = null;
			this.pendingAtNanos = Long.MAX_VALUE;
		}
		long now = System.nanoTime();
		List<H> due = new ArrayList<>();
		List<H> early = new ArrayList<>();
		for (H handle : this.watched) {
			if (!handle.isHeld()) {
				this.watched.remove(handle);
			}
			else if (now - handle.leaseDeadlineNanos() >= 0) {
				expired(handle);
			}
			else if (renewable(handle, now)) {
				(renewalDue(handle, now) ? due : early).add(handle);
			}
		}
		if (!due.isEmpty()) {
			// A wake-up with nothing due (the lock that asked for it is gone) sends nothing.
			due.addAll(early);
			renew(due);
		}
		long next = Long.MAX_VALUE;
		for (H handle : this.watched) {
			next = Math.min(next, nextAttention(handle));
		}
		if (next != Long.MAX_VALUE) {
			wakeBy(next);
		}
	}

	private void expired(H handle) {
		this.watched.remove(handle);
		LostLock.Reason reason = handle.renewalEnded() ? LostLock.Reason.LEASE_EXPIRED
				: handle.renewalRefused ? LostLock.Reason.STORE_REFUSED : LostLock.Reason.STORE_UNREACHABLE;
		this.lossReporter.lost(handle, reason);
	}

	/**
	 * Sends every batch at once and then reads the answers, so a tick costs one round trip however many batches
	 * it takes.
	 */
	private void renew(List<H> due) {
		long sentAt = System.nanoTime();
		List<Batch> batches = new ArrayList<>();
		Batch batch = new Batch();
		for (H handle : due) {
			long ttl = handle.ttlMillisFrom(sentAt, handle.leaseNanos());
			if (ttl < 1) {
				continue;
			}
			if (batch.handles.size() == this.batchSize) {
				batches.add(batch);
				batch = new Batch();
			}
			batch.handles.add(handle);
			batch.ttls.add(ttl);
		}
		if (!batch.handles.isEmpty()) {
			batches.add(batch);
		}
		if (batches.isEmpty()) {
			return;
		}
		for (Batch sent : batches) {
			sent.reply = this.renewer.renew(sent.handles, sent.ttls).toCompletableFuture();
		}
		this.statistics.countRenewalRoundTrip();
		for (Batch sent : batches) {
			settle(sent, sentAt);
		}
	}

	private void settle(Batch batch, long sentAt) {
		List<Boolean> renewed;
		try {
			renewed = batch.reply.join();
		}
		catch (RuntimeException ex) {
			this.statistics.countRenewalFailures(batch.handles.size());
			// Unreachable or refused for now: try again soon; the lease deadline decides when the lock counts as
			// lost, and the last failure why.
			boolean refused = this.refusal.test(ex);
			for (H handle : batch.handles) {
				handle.retryAtNanos = System.nanoTime() + handle.leaseNanos() / 10;
				handle.renewalRefused = refused;
			}
			return;
		}
		for (int i = 0; i < batch.handles.size(); i++) {
			H handle = batch.handles.get(i);
			if (!handle.isHeld()) {
				// Released while the renewal was on its way: its answer no longer means anything.
				continue;
			}
			if (renewed.get(i)) {
				handle.renewalRefused = false;
				handle.renewed(sentAt, TimeUnit.MILLISECONDS.toNanos(batch.ttls.get(i)));
				this.statistics.countRenewal();
			}
			else {
				this.statistics.countRenewalNotOwned();
				this.watched.remove(handle);
				this.lossReporter.lost(handle, LostLock.Reason.NOT_OWNED);
			}
		}
	}

	/** Locks renewed by one call to the store, with the time to live each gets in milliseconds, and the answer once sent. */
	private final class Batch {

		final List<H> handles = new ArrayList<>();

		final List<Long> ttls = new ArrayList<>();

		CompletableFuture<List<Boolean>> reply;

	}

	/** Whether a renewal may be sent now: not waiting to retry a failed one, and not yet at its longest lease. */
	private static boolean renewable(LeasedLockHandle handle, long now) {
		return now - handle.retryAtNanos >= 0 && !handle.renewalEnded();
	}

	/**
	 * Whether a lock must be renewed on this tick. A sixth of the lease rather than a third, so that a wake-up a
	 * little early (the scheduler's granularity) still renews it instead of scheduling another tick.
	 */
	private static boolean renewalDue(LeasedLockHandle handle, long now) {
		return now - (handle.renewedAtNanos + handle.leaseNanos() / 6) >= 0;
	}

	/** When the watchdog must next look at this lock: its renewal time, or its lease deadline. */
	private static long nextAttention(LeasedLockHandle handle) {
		long deadline = handle.leaseDeadlineNanos();
		if (handle.renewalEnded()) {
			return deadline;
		}
		long renewAt = Math.max(handle.renewedAtNanos + handle.leaseNanos() / 3, handle.retryAtNanos);
		return (renewAt - deadline < 0) ? renewAt : deadline;
	}

	@Override
	public void close() {
		this.scheduler.shutdownNow();
	}

	/** Renews a batch of locks in the store; answers, per lock, whether it was still ours. */
	@FunctionalInterface
	public interface Renewer<H extends LeasedLockHandle> {

		/**
		 * Renews the locks, each for its time to live in milliseconds. May answer on any thread; the watchdog sends
		 * every batch of a tick before it waits for the first answer.
		 */
		CompletionStage<List<Boolean>> renew(List<H> handles, List<Long> ttlMillis);

	}

	/** Told of a lock found lost by renewal or by its lease deadline. */
	@FunctionalInterface
	public interface LossReporter<H extends LeasedLockHandle> {

		void lost(H handle, LostLock.Reason reason);

	}

}
