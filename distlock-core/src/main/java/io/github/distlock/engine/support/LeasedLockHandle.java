package io.github.distlock.engine.support;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

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
 */
public abstract class LeasedLockHandle implements LockHandle {

	private static final long ONE_MILLISECOND = TimeUnit.MILLISECONDS.toNanos(1);

	private final String name;

	private final String key;

	private final long token;

	private final long leaseNanos;

	private final boolean renewable;

	private final long maxDeadlineNanos;

	private final long acquiredAtNanos;

	private final HandleLife life = new HandleLife();

	private volatile long leaseDeadlineNanos;

	/** When the last successful renewal (or the acquisition) was sent; only the watchdog writes it. */
	volatile long renewedAtNanos;

	/** Whether the last renewal attempt was refused by the store (not merely unanswered); only the watchdog writes it. */
	volatile boolean renewalRefused;

	/** Earliest time of the next renewal attempt after a failed one; only the watchdog writes it. */
	volatile long retryAtNanos;

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
		this.leaseDeadlineNanos = acquiredAtNanos + initialLeaseNanos;
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

	@Override
	public final long leaseDeadlineNanos() {
		return this.leaseDeadlineNanos;
	}

	@Override
	public final boolean isLost() {
		return this.life.isLost();
	}

	@Override
	public final LostLock.Reason lossReason() {
		return this.life.lossReason();
	}

	@Override
	public final void onLost(Runnable action) {
		this.life.onLost(action);
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
		return !this.renewable || this.maxDeadlineNanos - this.leaseDeadlineNanos < ONE_MILLISECOND;
	}

	/**
	 * How long a call about these locks, sent at {@code nowNanos}, may be waited for: at most {@code limitNanos}, and
	 * never past the earliest of their lease deadlines (past it that lock must be declared lost, answer or not), but
	 * at least a millisecond.
	 */
	public static long patienceNanos(List<? extends LeasedLockHandle> handles, long nowNanos, long limitNanos) {
		long patience = limitNanos;
		for (LeasedLockHandle handle : handles) {
			patience = Math.min(patience, handle.leaseDeadlineNanos - nowNanos);
		}
		return Math.max(ONE_MILLISECOND, patience);
	}

	/** Records a renewal sent at {@code sentAtNanos} that gave the lock {@code ttlNanos} more. */
	final void renewed(long sentAtNanos, long ttlNanos) {
		this.renewedAtNanos = sentAtNanos;
		this.leaseDeadlineNanos = sentAtNanos + ttlNanos;
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
	 * Records an extension sent at {@code sentAtNanos} that made the lock live at least {@code ttlNanos} more; the
	 * store never shortens a lease for it, so neither does the deadline believed here.
	 */
	public final void extended(long sentAtNanos, long ttlNanos) {
		long deadline = sentAtNanos + ttlNanos;
		if (deadline - this.leaseDeadlineNanos > 0) {
			this.leaseDeadlineNanos = deadline;
		}
	}

	/**
	 * Moves a held handle to lost and runs its loss actions (see {@link HandleLife#markLost}).
	 * @return whether this call did so (so the loss is reported once)
	 */
	public final boolean markLost(LostLock.Reason reason) {
		return this.life.markLost(reason);
	}

	/**
	 * Starts the owner's release: from now on no renewal, check or expiry counts as a loss.
	 * @return false when the handle is not held (already lost, or released before)
	 */
	public final boolean beginRelease() {
		return this.life.beginRelease();
	}

	/** The release went through. */
	public final void markReleased() {
		this.life.markReleased();
	}

	/**
	 * The release found the lock no longer this holder's: it was lost before the release, while the work ran.
	 * @return whether this call moved the handle to lost
	 */
	public final boolean markLostAtRelease(LostLock.Reason reason) {
		return this.life.markLostAtRelease(reason);
	}

	/** A snapshot for operators, with the holder id the store keeps. */
	public final HeldLockView view(String holder, long nowNanos) {
		return new HeldLockView(this.name, this.key, mode(), permits(), this.token, holder,
				Duration.ofNanos(nowNanos - this.acquiredAtNanos), Duration.ofNanos(this.leaseDeadlineNanos - nowNanos));
	}

	@Override
	public String toString() {
		return "lock '" + this.name + "' key '" + DisplayedKey.of(this.key) + "' token " + this.token;
	}

}
