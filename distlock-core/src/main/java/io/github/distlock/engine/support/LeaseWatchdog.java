package io.github.distlock.engine.support;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.stream.IntStream;

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
 * The thread never waits for the store. Answers are settled on it as they arrive, so a renewal that one store node
 * leaves unanswered until the command timeout (a stalled Redis master, a hung database session) holds back neither
 * the renewals of the locks it does not carry nor the deadline of a lock that is not renewed. A lock whose renewal is
 * on its way is not sent again, and its lease deadline waits for that renewal's answer: one that confirms it gives
 * the lock the lease the renewal asked for, counted from when it was sent, and one that fails lets the deadline
 * decide. So a renewal the store performed is not taken for a loss merely because its answer came after the old
 * deadline.
 * <p>
 * For engines: the handles are {@link LeasedLockHandle}s, and the engine says how a batch is renewed in its store.
 */
public final class LeaseWatchdog<H extends LeasedLockHandle> implements AutoCloseable {

	private final int batchSize;

	private final Predicate<Throwable> refusal;

	private final Set<H> watched = ConcurrentHashMap.newKeySet();

	/** Locks with a renewal sent and not yet answered; only the watchdog's thread uses it. */
	private final Set<H> awaitingAnswer = new HashSet<>();

	private final ScheduledExecutorService scheduler;

	private final PartedRenewer<H> renewer;

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
		this(threadName, batchSize, wholeAnswer(renewer), refusal, lossReporter, statistics);
	}

	/**
	 * For a store whose renewal call is answered in parts (one per node of a cluster): each part is settled as it
	 * arrives, so a slow node holds back only its own locks.
	 * @see #LeaseWatchdog(String, int, Renewer, Predicate, LossReporter, LockEngineStatistics)
	 */
	public static <H extends LeasedLockHandle> LeaseWatchdog<H> answeredInParts(String threadName, int batchSize,
			PartedRenewer<H> renewer, Predicate<Throwable> refusal, LossReporter<H> lossReporter,
			LockEngineStatistics statistics) {
		return new LeaseWatchdog<>(threadName, batchSize, renewer, refusal, lossReporter, statistics);
	}

	private LeaseWatchdog(String threadName, int batchSize, PartedRenewer<H> renewer, Predicate<Throwable> refusal,
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
			else if (this.awaitingAnswer.contains(handle)) {
				// Its renewal's answer decides, whenever it comes (and asks for the next look then).
				continue;
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
		wakeForNextOf(this.watched);
	}

	/** Asks for a tick when the first of these locks needs one; those awaiting an answer ask when it comes. */
	private void wakeForNextOf(Iterable<H> handles) {
		long next = Long.MAX_VALUE;
		for (H handle : handles) {
			if (this.watched.contains(handle) && !this.awaitingAnswer.contains(handle)) {
				next = Math.min(next, nextAttention(handle));
			}
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
	 * Sends every batch at once, so a tick costs one round trip however many batches it takes; each answer (or part
	 * of one) is settled on this thread when it arrives.
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
			this.awaitingAnswer.addAll(sent.handles);
			List<AnswerPart> parts;
			try {
				parts = this.renewer.renew(sent.handles, sent.ttls);
			}
			catch (RuntimeException ex) {
				// Not even sent: as if unanswered, so the watchdog goes on and tries again.
				parts = List.of(new AnswerPart(allOf(sent.handles), CompletableFuture.failedFuture(ex)));
			}
			for (AnswerPart part : parts) {
				part.renewed().whenComplete((renewed, failure) -> settleOnThisThread(() -> settle(sent, part.positions(),
						sentAt, renewed, failure)));
			}
		}
		this.statistics.countRenewalRoundTrip();
	}

	private void settleOnThisThread(Runnable settlement) {
		try {
			this.scheduler.execute(settlement);
		}
		catch (RejectedExecutionException closed) {
			// The engine is closed: nothing is renewed or reported any more.
		}
	}

	private void settle(Batch batch, List<Integer> positions, long sentAt, List<Boolean> renewed, Throwable failure) {
		List<H> handles = new ArrayList<>(positions.size());
		for (int position : positions) {
			handles.add(batch.handles.get(position));
		}
		this.awaitingAnswer.removeAll(handles);
		if (failure != null) {
			this.statistics.countRenewalFailures(handles.size());
			// Unreachable or refused for now: try again soon; the lease deadline decides when the lock counts as
			// lost, and the last failure why.
			boolean refused = this.refusal.test(failure);
			for (H handle : handles) {
				handle.retryAtNanos = System.nanoTime() + handle.leaseNanos() / 10;
				handle.renewalRefused = refused;
			}
		}
		else {
			for (int i = 0; i < handles.size(); i++) {
				H handle = handles.get(i);
				if (!handle.isHeld()) {
					// Released while the renewal was on its way: its answer no longer means anything.
					continue;
				}
				if (renewed.get(i)) {
					handle.renewalRefused = false;
					handle.renewed(sentAt, TimeUnit.MILLISECONDS.toNanos(batch.ttls.get(positions.get(i))));
					this.statistics.countRenewal();
				}
				else {
					this.statistics.countRenewalNotOwned();
					this.watched.remove(handle);
					this.lossReporter.lost(handle, LostLock.Reason.NOT_OWNED);
				}
			}
		}
		wakeForNextOf(handles);
	}

	private static List<Integer> allOf(List<?> handles) {
		return IntStream.range(0, handles.size()).boxed().toList();
	}

	private static <H extends LeasedLockHandle> PartedRenewer<H> wholeAnswer(Renewer<H> renewer) {
		return (handles, ttlMillis) -> List.of(new AnswerPart(allOf(handles), renewer.renew(handles, ttlMillis)));
	}

	/** Locks renewed by one call to the store, with the time to live each gets in milliseconds. */
	private final class Batch {

		final List<H> handles = new ArrayList<>();

		final List<Long> ttls = new ArrayList<>();

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
		 * Renews the locks, each for its time to live in milliseconds. Called on the watchdog's thread, so it sends
		 * and returns without waiting (blocking work goes to a thread of the engine's). May answer on any thread,
		 * and must answer (or fail) within a bounded time, such as the store's command timeout: until then the locks
		 * are neither renewed again nor declared lost.
		 */
		CompletionStage<List<Boolean>> renew(List<H> handles, List<Long> ttlMillis);

	}

	/**
	 * Renews a batch of locks in the store with calls answered separately (one per node of a cluster), each
	 * answering for some of the locks.
	 */
	@FunctionalInterface
	public interface PartedRenewer<H extends LeasedLockHandle> {

		/**
		 * Renews the locks, each for its time to live in milliseconds, as {@link Renewer#renew} does.
		 * @return the parts of the answer, which together cover every lock once
		 */
		List<AnswerPart> renew(List<H> handles, List<Long> ttlMillis);

	}

	/**
	 * Part of a renewal's answer: the positions of the locks it answers for, in the list given to the renewer, and,
	 * in the same order, whether each was still ours. May complete on any thread.
	 */
	public record AnswerPart(List<Integer> positions, CompletionStage<List<Boolean>> renewed) {
	}

	/** Told of a lock found lost by renewal or by its lease deadline. */
	@FunctionalInterface
	public interface LossReporter<H extends LeasedLockHandle> {

		void lost(H handle, LostLock.Reason reason);

	}

}
