package io.github.distlock.engine.support;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;

import io.github.distlock.LostLock;
import io.github.distlock.engine.DisplayedKey;
import io.github.distlock.engine.HeldLockView;
import io.github.distlock.engine.LockHandle;

/**
 * The part of a {@link LockHandle} every leased engine shares: who holds which lock with which token, until when the
 * lease is known to run, and the life of the handle from held to released or lost. An engine adds where the lock
 * lives in its store and how to release, verify and extend it; {@link LeaseWatchdog} renews it.
 * <p>
 * Its life from held to released or lost is a {@link HandleLife}: an answer that arrives while the release is on its
 * way (a renewal that reached the store after the release and found the lock gone) cannot be taken for a loss.
 * <p>
 * The holder's clock decides when the lease has run out: once its deadline passes with no renewal confirmed, the lock
 * is lost, to whoever looks first ({@link #isLost()}, the watchdog's tick at the deadline), whatever the store is
 * doing, and an answer that confirms a renewal after that does not bring it back. That deadline is the store's, as
 * the holder reckons it (from when the request that set it was sent), less an allowance
 * ({@link #allowanceNanos(long)}) for clocks that run apart and for the moment it takes to report the loss: so the
 * holder is told before the store can let a second holder in.
 */
public abstract class LeasedLockHandle implements LockHandle {

	private static final long ONE_MILLISECOND = TimeUnit.MILLISECONDS.toNanos(1);

	private static final long TWO_MILLISECONDS = TimeUnit.MILLISECONDS.toNanos(2);

	private final String name;

	private final String key;

	private final long token;

	private final long leaseNanos;

	private final boolean renewable;

	private final long maxDeadlineNanos;

	private final long acquiredAtNanos;

	private final HandleLife life = new HandleLife();

	/** What the deadline believed here leaves out of the store's. */
	private final long allowanceNanos;

	/** Until when the store keeps the lock, reckoned from when the request that set it was sent. */
	private volatile long storeDeadlineNanos;

	/** When the last confirmed renewal (or the acquisition) was sent; written as the confirmation arrives. */
	volatile long renewedAtNanos;

	/** Whether the last renewal attempt was refused by the store (not merely unanswered); only the watchdog writes it. */
	volatile boolean renewalRefused;

	/** Earliest time of the next renewal attempt after a failed one; only the watchdog writes it. */
	volatile long retryAtNanos;

	/** Reports this lock lost once its lease has run out; set by the watchdog that renews it. */
	volatile @Nullable Runnable leaseRunOut;

	/**
	 * @param acquiredAtNanos monotonic time no later than the moment the store granted the lock
	 * @param initialLeaseNanos the lease the store was given at acquisition
	 * @param leaseNanos the lease each renewal gives
	 * @param renewable whether the watchdog renews the lock
	 * @param maxDeadlineNanos monotonic time past which the lock is not renewed ({@code maxLease}), or
	 * {@link Long#MAX_VALUE}
	 */
	protected LeasedLockHandle(String name, String key, long token, long acquiredAtNanos, long initialLeaseNanos,
			long leaseNanos, boolean renewable, long maxDeadlineNanos) {
		this.name = name;
		this.key = key;
		this.token = token;
		this.leaseNanos = leaseNanos;
		this.renewable = renewable;
		this.maxDeadlineNanos = maxDeadlineNanos;
		this.acquiredAtNanos = acquiredAtNanos;
		this.renewedAtNanos = acquiredAtNanos;
		this.retryAtNanos = acquiredAtNanos;
		this.storeDeadlineNanos = acquiredAtNanos + initialLeaseNanos;
		this.allowanceNanos = allowanceNanos(Math.min(initialLeaseNanos, leaseNanos));
	}

	/**
	 * What a holder's deadline leaves out of a lease of {@code leaseNanos} in the store: a hundredth of it, for a
	 * store's clock that runs faster than the holder's (the allowance Redis's Redlock description makes), and 2 ms for
	 * the holder's timer to report the loss; never more than a quarter of the lease.
	 */
	public static long allowanceNanos(long leaseNanos) {
		return Math.min(leaseNanos / 100 + TWO_MILLISECONDS, leaseNanos / 4);
	}

	@Override
	public final String name() {
		return this.name;
	}

	@Override
	public final String key() {
		return this.key;
	}

	@Override
	public final long token() {
		return this.token;
	}

	/**
	 * Until when the lock is known to be this holder's: the store's deadline, less the allowance. Past it with no
	 * renewal confirmed, the lock is lost.
	 */
	@Override
	public final long leaseDeadlineNanos() {
		return this.storeDeadlineNanos - this.allowanceNanos;
	}

	/**
	 * Whether the lock is lost: found so by the engine, or its lease deadline passed by this process's clock without a
	 * confirmed renewal. The latter is reported here and now, on the calling thread, if the watchdog has not yet done
	 * so: no answer from the store, however late, is waited for.
	 */
	@Override
	public final boolean isLost() {
		noticeLeaseRunOut();
		return this.life.isLost();
	}

	@Override
	public final LostLock.@Nullable Reason lossReason() {
		noticeLeaseRunOut();
		return this.life.lossReason();
	}

	/**
	 * Asks the store whether this holder still owns the lock, unless the holder's clock already says the lease ran
	 * out (then no round trip is made); an answer that comes after the deadline cannot vouch for the lock either.
	 */
	@Override
	public final boolean verify() {
		if (isLost()) {
			return false;
		}
		return verifyInStore() && !isLost();
	}

	/** One round trip that asks the store whether this holder still owns the lock; see {@link LockHandle#verify()}. */
	protected abstract boolean verifyInStore();

	private void noticeLeaseRunOut() {
		Runnable report = this.leaseRunOut;
		if (report != null && this.life.isHeld() && leaseRanOut(System.nanoTime())) {
			report.run();
		}
	}

	/** Whether the lease deadline believed here has passed at {@code nowNanos}. */
	public final boolean leaseRanOut(long nowNanos) {
		return nowNanos - leaseDeadlineNanos() >= 0;
	}

	@Override
	public final void whenLost(Runnable action) {
		this.life.whenLost(action);
	}

	/** The lease each renewal gives, in nanoseconds. */
	public final long leaseNanos() {
		return this.leaseNanos;
	}

	/** Monotonic time past which the lock is not renewed ({@code maxLease}), or {@link Long#MAX_VALUE}. */
	public final long maxDeadlineNanos() {
		return this.maxDeadlineNanos;
	}

	/** Monotonic time no later than the moment the store granted the lock. */
	public final long acquiredAtNanos() {
		return this.acquiredAtNanos;
	}

	/** Whether the owner holds the lock: neither releasing it, nor released, nor lost. */
	public final boolean isHeld() {
		return this.life.isHeld();
	}

	/**
	 * Whether the lease will not be renewed any more: renewal is off, or the lease already reaches {@code maxLease}
	 * (within a millisecond, since a renewal cannot add less).
	 */
	public final boolean renewalEnded() {
		return !this.renewable || this.maxDeadlineNanos - this.storeDeadlineNanos < ONE_MILLISECOND;
	}

	/**
	 * How long a call about these locks, sent at {@code nowNanos}, may be waited for: at most {@code limitNanos}, and
	 * never past the earliest of their lease deadlines (past it that lock must be declared lost, answer or not), but
	 * at least a millisecond.
	 */
	public static long patienceNanos(List<? extends LeasedLockHandle> handles, long nowNanos, long limitNanos) {
		long patience = limitNanos;
		for (LeasedLockHandle handle : handles) {
			patience = Math.min(patience, handle.leaseDeadlineNanos() - nowNanos);
		}
		return Math.max(ONE_MILLISECOND, patience);
	}

	/**
	 * Records a renewal sent at {@code sentAtNanos} that gave the lock {@code ttlNanos} more, confirmed now.
	 * @return false, recording nothing, when the confirmation comes after the lease ran out: the lock is lost then
	 */
	final boolean renewed(long sentAtNanos, long ttlNanos) {
		if (leaseRanOut(System.nanoTime())) {
			return false;
		}
		this.renewedAtNanos = sentAtNanos;
		this.storeDeadlineNanos = sentAtNanos + ttlNanos;
		return true;
	}

	/**
	 * The time to live a request sent now may ask for: {@code wanted}, cut to what {@code maxLease} leaves, in whole
	 * milliseconds (what stores keep), so that the deadline believed here is never later than the store's.
	 * @return the milliseconds to ask for; less than 1 when {@code maxLease} leaves nothing
	 */
	public final long ttlMillisFrom(long sentAtNanos, long wantedNanos) {
		long room = (this.maxDeadlineNanos == Long.MAX_VALUE) ? Long.MAX_VALUE : this.maxDeadlineNanos - sentAtNanos;
		return TimeUnit.NANOSECONDS.toMillis(Math.min(wantedNanos, room));
	}

	/**
	 * Records an extension sent at {@code sentAtNanos} that made the lock live at least {@code ttlNanos} more,
	 * confirmed now; the store never shortens a lease for it, so neither does the deadline believed here.
	 * @return false, recording nothing, when the confirmation comes after the lease ran out (the lock is lost then,
	 * as {@link #isLost()} says)
	 */
	public final boolean extended(long sentAtNanos, long ttlNanos) {
		if (leaseRanOut(System.nanoTime())) {
			return false;
		}
		long deadline = sentAtNanos + ttlNanos;
		if (deadline - this.storeDeadlineNanos > 0) {
			this.storeDeadlineNanos = deadline;
		}
		return true;
	}

	/** Marks the lock lost and reports it, once (see {@link HandleLife#lose}); {@link EngineLocks} decides when. */
	final boolean lose(LostLock.Reason reason, Runnable report) {
		return this.life.lose(reason, report);
	}

	/** Waits, if the lock is lost, until its loss has been reported (see {@link HandleLife#awaitLossReport()}). */
	final void awaitLossReport() {
		this.life.awaitLossReport();
	}

	/**
	 * Starts the owner's release: from now on no renewal, check or expiry counts as a loss. A lease already run out by
	 * the holder's clock is a loss instead (reported now if nobody has yet): nothing vouched for the lock to the end of
	 * the work, whatever a release would answer.
	 * @return false when the handle is not held (already lost, or released before)
	 */
	public final boolean beginRelease() {
		noticeLeaseRunOut();
		return this.life.beginRelease();
	}

	/** The release went through (or ended without telling, and the lock expires by itself). */
	public final void markReleased() {
		this.life.markReleased();
	}

	/** The release found the lock lost before it (see {@link HandleLife#loseAtRelease}); {@link EngineLocks} tells. */
	final boolean loseAtRelease(LostLock.Reason reason, Runnable report) {
		return this.life.loseAtRelease(reason, report);
	}

	/** A snapshot for operators, with the holder id the store keeps. */
	public final HeldLockView view(String holder, long nowNanos) {
		return new HeldLockView(this.name, this.key, mode(), permits(), this.token, holder,
				Duration.ofNanos(nowNanos - this.acquiredAtNanos), Duration.ofNanos(leaseDeadlineNanos() - nowNanos));
	}

	@Override
	public String toString() {
		return "lock '" + this.name + "' key '" + DisplayedKey.of(this.key) + "' token " + this.token;
	}

}
