package io.github.distlock.etcd;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.stream.IntStream;

import io.etcd.jetcd.ByteSequence;
import org.jspecify.annotations.Nullable;

import io.github.distlock.LockLostListener;
import io.github.distlock.LockStoreException;
import io.github.distlock.LostLock;
import io.github.distlock.engine.LockEngineStatistics;
import io.github.distlock.engine.support.EngineLocks;
import io.github.distlock.engine.support.LeaseWatchdog;
import io.github.distlock.engine.support.LeasedLockHandle;

/**
 * What held locks' handles ask of etcd: a release deletes the acquisition's own key if it still has the lock's
 * token; a check, an extension and the watchdog's confirmation read whether the key is still there. The locks
 * themselves, their renewal and every loss are kept by {@link EngineLocks}; a lost key still there is deleted once
 * its holder has been told.
 */
final class HeldKeys implements EngineLocks.Store<EtcdLockHandle> {

	/** Locks one confirmation carries at most: etcd's default limit of operations in one transaction. */
	private static final int CONFIRMATION_BATCH = 128;

	private static final Duration CALL_TIMEOUT = EtcdLockEngine.CALL_TIMEOUT;

	private final LockQueue queue;

	private final CallAttempts attempts;

	private final StandingRefusal refusal;

	private final KeyCleaner cleaner;

	private final String rootPrefix;

	private final EngineLocks<EtcdLockHandle> locks;

	private volatile boolean closed;

	HeldKeys(LockQueue queue, CallAttempts attempts, StandingRefusal refusal, KeyCleaner cleaner, String rootPrefix,
			LockLostListener listener, LockEngineStatistics statistics) {
		this.queue = queue;
		this.attempts = attempts;
		this.refusal = refusal;
		this.cleaner = cleaner;
		this.rootPrefix = rootPrefix;
		this.locks = new EngineLocks<>(EtcdLockEngine.class, statistics, listener, this,
				(lossReporter) -> new LeaseWatchdog<>("distlock-etcd-watchdog", CONFIRMATION_BATCH, this::confirm,
						EtcdFailure::isRefusal,
						(handle, found) -> lossReporter.lost(handle, reasonOf(handle, found)), statistics));
	}

	/** The engine's held locks. */
	EngineLocks<EtcdLockHandle> locks() {
		return this.locks;
	}

	boolean release(EtcdLockHandle handle) {
		if (!this.locks.beginRelease(handle)) {
			return false;
		}
		boolean deleted;
		try {
			// The release deletes the key only if it still has this lock's token, so it is repeated as it is: no other key
			// ever gets that create revision. A repeat that finds the key gone cannot tell an earlier attempt that deleted it
			// (unanswered) from a deletion by someone else. While the instance's lease lives, no one else deletes it but an
			// operator (the engine itself deletes a lock's key only once it reported it lost, and then there is no release);
			// so the repeat counts as the release. Only an operator's deletion during that very release, in the seconds a
			// leader takes to fail over, goes unreported: the owner was giving the lock up then anyway.
			deleted = this.attempts.call((n) -> this.queue.leave(handle.ownKey, handle.token())
				.thenApply((left) -> left || (n > 0 && !instanceLeaseRanOut(handle.lease))), CALL_TIMEOUT.toNanos())
				.get();
			this.refusal.succeeded();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw notReleased(handle, ex);
		}
		catch (ExecutionException ex) {
			throw notReleased(handle, (ex.getCause() != null) ? ex.getCause() : ex);
		}
		if (deleted) {
			handle.markReleased();
			return true;
		}
		this.locks.lostAtRelease(handle, LostLock.Reason.NOT_OWNED);
		return false;
	}

	/** A release that got no answer: the key is deleted in the background, as it would hold the lock otherwise. */
	private LockStoreException notReleased(EtcdLockHandle handle, Throwable cause) {
		handle.markReleased();
		this.cleaner.leave(handle.ownKey, handle.token(), handle.lease);
		EtcdFailure failure = EtcdFailure.of(cause);
		String sentence = failure.describe(this.rootPrefix, CALL_TIMEOUT);
		if (failure.isRefusal()) {
			this.refusal.refused(sentence);
		}
		return new LockStoreException(handle.name(), handle.key(), failure.code(), "Could not release " + handle
				+ " in etcd: " + sentence + ". It is deleted in the background once etcd answers, and at the latest"
				+ " when the instance's lease ends", new EtcdCallException(sentence, cause));
	}

	/**
	 * Asks etcd whether the key is still this acquisition's. When etcd cannot be reached, the answer is whether the
	 * lock is known to live: its lease deadline and the instance's lease both still ahead.
	 */
	boolean verify(EtcdLockHandle handle) {
		if (!handle.isHeld()) {
			this.locks.awaitLossReport(handle);
			return false;
		}
		Boolean owned = stillOwned(handle);
		if (owned == null) {
			long now = System.nanoTime();
			return handle.isHeld() && !handle.lease.isEnded() && now - handle.leaseDeadlineNanos() < 0
					&& now - handle.lease.aliveUntilNanos() < 0;
		}
		if (owned && !handle.lease.isEnded()) {
			return true;
		}
		lost(handle, LostLock.Reason.NOT_OWNED);
		return false;
	}

	/**
	 * Moves the lease deadline on after one read that finds the key: the key itself needs nothing, as it lives as
	 * long as the instance's lease. An unreachable etcd extends nothing and loses nothing.
	 */
	boolean extend(EtcdLockHandle handle, Duration ttl) {
		EngineLocks.Extension extension = this.locks.beginExtension(handle, ttl);
		if (extension == null) {
			return false;
		}
		Boolean owned = stillOwned(handle);
		if (owned == null) {
			return false;
		}
		if (!owned || handle.lease.isEnded()) {
			lost(handle, LostLock.Reason.NOT_OWNED);
			return false;
		}
		// Confirmed after the lease ran out, it extends nothing: the lock is lost at its deadline.
		return extension.confirmed(handle);
	}

	/** One read of the key: whether it is still this acquisition's, or null when etcd gave no answer in time. */
	private @Nullable Boolean stillOwned(EtcdLockHandle handle) {
		try {
			// A read: repeated as it is.
			return this.attempts.call((n) -> this.queue.stillOwned(handle.ownKey, handle.token()),
					CALL_TIMEOUT.toNanos()).get();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return null;
		}
		catch (ExecutionException | RuntimeException ex) {
			return null;
		}
	}

	/**
	 * The watchdog's renewal: one read-only transaction that finds whether every lock's key is still there. A lock
	 * whose lease has ended counts as not there: its key is gone, or going. The watchdog waits for the answer, so it
	 * waits no longer than the earliest lease deadline among the locks: past it, that lock must be declared lost,
	 * answer or not. Within that, the read is sent again when an attempt gets no answer within an election timeout.
	 */
	private CompletionStage<List<Boolean>> confirm(List<EtcdLockHandle> handles, List<Long> ttlMillis) {
		List<ByteSequence> owns = handles.stream().map((handle) -> handle.ownKey).toList();
		List<Long> tokens = handles.stream().map(EtcdLockHandle::token).toList();
		long patience = LeasedLockHandle.patienceNanos(handles, System.nanoTime(), CALL_TIMEOUT.toNanos());
		try {
			// A read: repeated as it is, within the patience.
			return this.attempts.call((n) -> this.queue.stillOwned(owns, tokens), patience)
				.thenApply((owned) -> IntStream.range(0, handles.size())
					.mapToObj((i) -> owned.get(i) && !handles.get(i).lease.isEnded())
					.toList());
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
	}

	/**
	 * A loss found by a watch, a confirmation, a check, the lease deadline or the end of the instance's lease. A lock
	 * whose instance lease ran out too is etcd's loss ({@link LostLock.Reason#NOT_OWNED}): etcd holds none of that
	 * lease's keys any more.
	 */
	void lost(EtcdLockHandle handle, LostLock.Reason found) {
		this.locks.lost(handle, reasonOf(handle, found));
	}

	private static LostLock.Reason reasonOf(EtcdLockHandle handle, LostLock.Reason found) {
		return (found != LostLock.Reason.LEASE_EXPIRED && instanceLeaseRanOut(handle.lease))
				? LostLock.Reason.NOT_OWNED : found;
	}

	/**
	 * Whether the instance's lease has ended, or run out by this process's clock (no keep-alive answered within its
	 * time to live): etcd then holds none of its keys, whatever else kept a lock from being confirmed (a holder paused
	 * past both, a member that did not answer).
	 */
	static boolean instanceLeaseRanOut(InstanceLease lease) {
		return lease.isEnded() || System.nanoTime() - lease.aliveUntilNanos() >= 0;
	}

	@Override
	public void forget(EtcdLockHandle handle) {
		handle.stopWatching();
	}

	/**
	 * Deletes the key of a lost lock that is still there (its lease deadline ran out), once its holder has been told:
	 * the deletion hands the lock to the next waiter, who must not enter while the holder's listeners have not heard
	 * (the torture run's OVERLAP_UNREPORTED, on an etcd cluster whose leader died: the next holder entered 51 ms
	 * before the listener was called). The deletion compares the token, so it never touches another holder's key.
	 */
	@Override
	public void afterLoss(EtcdLockHandle handle, LostLock.Reason reason) {
		if (reason != LostLock.Reason.NOT_OWNED) {
			this.cleaner.leave(handle.ownKey, handle.token(), handle.lease);
		}
	}

	/** A closed engine freed its locks itself: nothing is lost behind its owner's back. */
	@Override
	public boolean toldNow(EtcdLockHandle handle) {
		return !this.closed;
	}

	@Override
	public String whyNotTold() {
		return "the engine is closed, and revoked its lease itself";
	}

	@Override
	public String holder(EtcdLockHandle handle) {
		return handle.holder;
	}

	/** The engine is closing: it frees its locks itself, so their ends are no losses. */
	void close() {
		this.closed = true;
		this.locks.close();
	}

}
