package io.github.distlock.redis;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;

import io.github.distlock.LostLock;
import io.github.distlock.engine.LockHandle;

/**
 * One acquisition of a Redis lock: where it lives, who holds it, and until when it is known to be held.
 */
final class RedisLockHandle implements LockHandle {

	enum State {

		HELD, RELEASED, LOST

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

	boolean isHeld() {
		return this.state.get() == State.HELD;
	}

	/** Records a renewal sent at {@code sentAtNanos} that gave the lock {@code ttlNanos} more. */
	void renewed(long sentAtNanos, long ttlNanos) {
		this.renewedAtNanos = sentAtNanos;
		this.leaseDeadlineNanos = sentAtNanos + ttlNanos;
	}

	/**
	 * Moves the handle from held to lost and runs its loss actions.
	 * @return whether this call did so (so the loss is reported once)
	 */
	boolean markLost(LostLock.Reason reason) {
		if (!this.state.compareAndSet(State.HELD, State.LOST)) {
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

	/** @return whether this call moved the handle from held to released */
	boolean markReleased() {
		return this.state.compareAndSet(State.HELD, State.RELEASED);
	}

	@Override
	public String toString() {
		return "lock '" + this.name + "' key '" + this.key + "' token " + this.token;
	}

}
