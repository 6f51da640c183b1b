package io.github.distlock.redis;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import io.github.distlock.LostLock;
import io.github.distlock.engine.DisplayedKey;
import io.github.distlock.engine.LockHandle;

/**
 * One acquisition of a Redis lock: where it lives, who holds it, and until when it is known to be held.
 */
final class RedisLockHandle implements LockHandle {

	private static final long ONE_MILLISECOND = TimeUnit.MILLISECONDS.toNanos(1);

	/**
	 * HELD until the owner starts its release (RELEASING, then RELEASED) or a loss is found (LOST). A handle leaves
	 * HELD before its release is sent, so an answer about it that arrives while the release is on its way (a renewal
	 * that reached Redis after the release and found the lock gone) cannot be taken for a loss.
	 */
	enum State {

		HELD, RELEASING, RELEASED, LOST

	}

	private final RedisLockEngine engine;

	private final String name;

	private final String key;

	final String redisKey;

	/** The lock's waiter queue, which a release hands the lock on from. */
	final String queueKey;

	/** "<holder id>|", the prefix of the stored value that proves ownership. */
	final String holderPrefix;

	private final long token;

	final long leaseNanos;

	final boolean renewable;

	/** Monotonic time past which the lock must not be renewed ({@code maxLease}), or {@link Long#MAX_VALUE}. */
	final long maxDeadlineNanos;

	final long acquiredAtNanos;

	private final AtomicReference<State> state = new AtomicReference<>(State.HELD);

	private volatile LostLock.Reason lossReason;

	private final List<Runnable> lossActions = new CopyOnWriteArrayList<>();

	private volatile long leaseDeadlineNanos;

	/** When the last successful renewal (or the acquisition) was sent; only the watchdog writes it. */
	volatile long renewedAtNanos;

	/** Whether the last renewal attempt was refused by Redis (not merely unanswered); only the watchdog writes it. */
	volatile boolean renewalRefused;

	/** Earliest time of the next renewal attempt after a failed one; only the watchdog writes it. */
	volatile long retryAtNanos;

	RedisLockHandle(RedisLockEngine engine, String name, String key, String redisKey, String queueKey,
			String holderPrefix, long token,
			long acquiredAtNanos, long initialLeaseNanos, long leaseNanos, boolean renewable, long maxDeadlineNanos) {
		this.engine = engine;
		this.name = name;
		this.key = key;
		this.redisKey = redisKey;
		this.queueKey = queueKey;
		this.holderPrefix = holderPrefix;
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
	public String name() {
		return this.name;
	}

	@Override
	public String key() {
		return this.key;
	}

	@Override
	public long token() {
		return this.token;
	}

	@Override
	public long leaseDeadlineNanos() {
		return this.leaseDeadlineNanos;
	}

	@Override
	public boolean isLost() {
		return this.state.get() == State.LOST;
	}

	@Override
	public LostLock.Reason lossReason() {
		return this.lossReason;
	}

	@Override
	public boolean verify() {
		return this.engine.verify(this);
	}

	@Override
	public void onLost(Runnable action) {
		this.lossActions.add(action);
		if (this.state.get() == State.LOST && this.lossActions.remove(action)) {
			action.run();
		}
	}

	@Override
	public boolean release() {
		return this.engine.release(this);
	}

	@Override
	public boolean extend(Duration ttl) {
		return this.engine.extend(this, ttl);
	}

	boolean isHeld() {
		return this.state.get() == State.HELD;
	}

	/**
	 * Whether the lease will not be renewed any more: renewal is off, or the lease already reaches {@code maxLease}
	 * (within the millisecond Redis counts in, since a renewal cannot add less).
	 */
	boolean renewalEnded() {
		return !this.renewable || this.maxDeadlineNanos - this.leaseDeadlineNanos < ONE_MILLISECOND;
	}

	/** Records a renewal sent at {@code sentAtNanos} that gave the lock {@code ttlNanos} more. */
	void renewed(long sentAtNanos, long ttlNanos) {
		this.renewedAtNanos = sentAtNanos;
		this.leaseDeadlineNanos = sentAtNanos + ttlNanos;
	}

	/**
	 * Records an extension sent at {@code sentAtNanos} that made the lock live at least {@code ttlNanos} more; the
	 * store never shortens a lease for it, so neither does the deadline believed here.
	 */
	void extended(long sentAtNanos, long ttlNanos) {
		long deadline = sentAtNanos + ttlNanos;
		if (deadline - this.leaseDeadlineNanos > 0) {
			this.leaseDeadlineNanos = deadline;
		}
	}

	/**
	 * Moves a held handle to lost and runs its loss actions. A handle its owner is releasing or has released is left
	 * alone: whatever the store says of it now is the release's doing.
	 * @return whether this call did so (so the loss is reported once)
	 */
	boolean markLost(LostLock.Reason reason) {
		return moveToLost(State.HELD, reason);
	}

	/**
	 * Starts the owner's release: from now on no renewal, check or expiry counts as a loss.
	 * @return false when the handle is not held (already lost, or released before)
	 */
	boolean beginRelease() {
		return this.state.compareAndSet(State.HELD, State.RELEASING);
	}

	/** The release went through. */
	void markReleased() {
		this.state.compareAndSet(State.RELEASING, State.RELEASED);
	}

	/**
	 * The release found the lock no longer this holder's: it was lost before the release, while the work ran.
	 * @return whether this call moved the handle to lost
	 */
	boolean markLostAtRelease(LostLock.Reason reason) {
		return moveToLost(State.RELEASING, reason);
	}

	private boolean moveToLost(State from, LostLock.Reason reason) {
		if (!this.state.compareAndSet(from, State.LOST)) {
			return false;
		}
		this.lossReason = reason;
		for (Runnable action : this.lossActions) {
			if (this.lossActions.remove(action)) {
				action.run();
			}
		}
		return true;
	}

	@Override
	public String toString() {
		return "lock '" + this.name + "' key '" + DisplayedKey.of(this.key) + "' token " + this.token;
	}

}
