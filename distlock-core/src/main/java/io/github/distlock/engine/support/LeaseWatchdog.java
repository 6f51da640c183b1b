package io.github.distlock.engine.support;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
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

import org.jspecify.annotations.Nullable;

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
 * The thread never waits for the store, and the holder's clock alone decides when a lease has run out. Answers are
 * settled as they arrive, so a renewal that one store node leaves unanswered until the command timeout (a stalled
 * Redis master, a hung database session) holds back neither the renewals of the locks it does not carry nor anybody's
 * deadline. A lock whose renewal is on its way is not sent again; if its deadline comes first, it is lost then, at
 * the deadline, as a lock whose renewal failed is: nothing confirmed it past that instant, and a second holder may
 * get it as soon as the store lets the key expire. A confirmation gives the lock the lease the renewal asked for,
 * counted from when it was sent (never from when the answer came, which would stretch the lease by the round trip);
 * one that comes after the deadline does not bring the lock back. Whoever looks at a lock past its deadline (its
 * holder asking {@link LeasedLockHandle#isLost()}) reports it there and then, so a watchdog thread held up by a
 * starved CPU delays no holder's knowledge of its loss.
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

	private @Nullable ScheduledFuture<?> pending;

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
		handle.leaseRunOut = () -> leaseRanOut(handle);
		this.watched.add(handle);
		wakeBy(RenewalTimes.nextAttention(handle));
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

	/** How late the most overdue renewal is now (zero when the watchdog keeps up, never negative). */
	public Duration renewalLag() {
		return Duration.ofNanos(renewalLagNanos());
	}

	private long renewalLagNanos() {
		long now = System.nanoTime();
		long lag = 0;
		for (H handle : this.watched) {
			if (!handle.renewalEnded()) {
				lag = Math.max(lag, now - RenewalTimes.renewAt(handle));
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
			else if (handle.leaseRanOut(now)) {
				leaseRanOut(handle);
			}
			else if (this.awaitingAnswer.contains(handle)) {
				// Not sent again before its renewal's answer comes (which asks for the next look then).
				continue;
			}
			else if (RenewalTimes.renewable(handle, now)) {
				(RenewalTimes.renewalDue(handle, now) ? due : early).add(handle);
			}
		}
		if (!due.isEmpty()) {
			// A wake-up with nothing due (the lock that asked for it is gone) sends nothing.
			due.addAll(early);
			renew(due);
		}
		wakeForNextOf(this.watched);
	}

	/**
	 * Asks for a tick when the first of these locks needs one: its renewal or its deadline, and only its deadline
	 * while its renewal's answer is awaited.
	 */
	private void wakeForNextOf(Iterable<H> handles) {
		long next = Long.MAX_VALUE;
		for (H handle : handles) {
			if (this.watched.contains(handle)) {
				next = Math.min(next, this.awaitingAnswer.contains(handle) ? handle.leaseDeadlineNanos()
						: RenewalTimes.nextAttention(handle));
			}
		}
		if (next != Long.MAX_VALUE) {
			wakeBy(next);
		}
	}

	/**
	 * Reports a lock whose lease ran out by the holder's clock with no renewal confirmed, on whichever thread finds it
	 * first (the engine reports a loss once); the reason is what kept it from being renewed.
	 */
	private void leaseRanOut(H handle) {
		if (!handle.isHeld() || !handle.leaseRanOut(System.nanoTime())) {
			return;
		}
		this.watched.remove(handle);
		this.lossReporter.lost(handle, RenewalTimes.runOutReason(handle));
	}

	/**
	 * Sends every batch at once, so a tick costs one round trip however many batches it takes; each answer (or part
	 * of one) is settled on this thread when it arrives.
	 */
	private void renew(List<H> due) {
		long sentAt = System.nanoTime();
		List<RenewalBatch<H>> batches = RenewalBatch.split(due, this.batchSize, sentAt);
		if (batches.isEmpty()) {
			return;
		}
		for (RenewalBatch<H> sent : batches) {
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
				part.renewed().whenComplete((renewed, failure) -> {
					// The deadline moves as the answer arrives, on the thread it arrives on: a watchdog thread held up
					// meanwhile must not turn a confirmation that came in time into a loss.
					List<@Nullable Boolean> inTime = (failure != null) ? null
							: confirm(sent, part.positions(), sentAt, renewed);
					settleOnThisThread(() -> settle(sent, part.positions(), inTime, failure));
				});
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

	/**
	 * Moves the deadline of every lock the store says it renewed, unless that lease already ran out.
	 * @return for each position, whether the lock was renewed in time; null where the store says it is not ours
	 */
	private List<@Nullable Boolean> confirm(RenewalBatch<H> batch, List<Integer> positions, long sentAt, List<Boolean> renewed) {
		List<@Nullable Boolean> inTime = new ArrayList<>(positions.size());
		for (int i = 0; i < positions.size(); i++) {
			int position = positions.get(i);
			H handle = batch.handles.get(position);
			inTime.add(renewed.get(i)
					? handle.renewed(sentAt, TimeUnit.MILLISECONDS.toNanos(batch.ttls.get(position))) : null);
		}
		return inTime;
	}

	/** What follows from an answer: counts, the next attempt, and the losses it shows; on the watchdog's thread. */
	private void settle(RenewalBatch<H> batch, List<Integer> positions, @Nullable List<@Nullable Boolean> inTime,
			@Nullable Throwable failure) {
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
			// An answer without a failure always comes with what it confirmed.
			List<@Nullable Boolean> confirmed = Objects.requireNonNull(inTime, "a renewal answer without its results");
			for (int i = 0; i < handles.size(); i++) {
				H handle = handles.get(i);
				@Nullable Boolean renewedInTime = confirmed.get(i);
				if (!handle.isHeld()) {
					// Released (or found lost) while the renewal was on its way: its answer no longer means anything.
					continue;
				}
				if (renewedInTime == null) {
					this.statistics.countRenewalNotOwned();
					this.watched.remove(handle);
					this.lossReporter.lost(handle, LostLock.Reason.NOT_OWNED);
				}
				else if (renewedInTime) {
					handle.renewalRefused = false;
					this.statistics.countRenewal();
				}
				else {
					// Renewed in the store, but answered after the lease ran out here: lost at that deadline.
					leaseRanOut(handle);
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
		 * are not renewed again, and those whose lease runs out meanwhile are lost at their deadline.
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
