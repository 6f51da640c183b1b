package io.github.distlock.redis;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

import io.github.distlock.LockMode;
import io.github.distlock.engine.support.LeasedLockHandle;

/**
 * One acquisition of a Redis lock: where it lives and the value that proves its holder owns it.
 */
final class RedisLockHandle extends LeasedLockHandle {

	private final HeldRedisLocks held;

	/** The exclusive lock's key, or a shared lock's writer key, which names it to local waiters. */
	final String redisKey;

	/** The lock's waiter queue, which a release hands the lock on from. */
	final String queueKey;

	/** "<holder id>|", the prefix of the stored value that proves ownership. */
	final String holderPrefix;

	/** Where a shared lock lives, or null for an exclusive lock. */
	final @Nullable SharedLock shared;

	private final LockMode mode;

	/**
	 * True while the grant waits for replicas to acknowledge it ({@code distlock.redis.min-replicas-acked}): the
	 * caller does not have it yet, so its loss is nobody's to hear of.
	 */
	private boolean heldBack;

	/** A loss found while the grant was held back, to be reported when it is handed out. */
	private boolean lossDeferred;

	RedisLockHandle(HeldRedisLocks held, String name, String key, String redisKey, String queueKey,
			String holderPrefix, long token, long acquiredAtNanos, long initialLeaseNanos, long leaseNanos,
			boolean renewable, long maxDeadlineNanos, LockMode mode, @Nullable SharedLock shared) {
		super(name, key, token, acquiredAtNanos, initialLeaseNanos, leaseNanos, renewable, maxDeadlineNanos);
		this.held = held;
		this.redisKey = redisKey;
		this.queueKey = queueKey;
		this.holderPrefix = holderPrefix;
		this.mode = mode;
		this.shared = shared;
	}

	/** Keeps the grant from the caller until the replicas confirm it. */
	synchronized void holdBack() {
		this.heldBack = true;
	}

	/**
	 * Gives the confirmed grant to the caller: from now on a loss is reported at once.
	 * @return whether a loss was found while it was held back, which the caller must now hear of (once: a loss found
	 * from here on is reported where it is found, never deferred)
	 */
	synchronized boolean handOut() {
		this.heldBack = false;
		boolean deferred = this.lossDeferred;
		this.lossDeferred = false;
		return deferred;
	}

	/** @return whether the loss just found must wait for the hand-out (the grant is held back) */
	synchronized boolean deferLoss() {
		if (this.heldBack) {
			this.lossDeferred = true;
		}
		return this.heldBack;
	}

	@Override
	public LockMode mode() {
		return this.mode;
	}

	@Override
	public int permits() {
		return (this.shared != null) ? this.shared.permits() : 0;
	}

	/** Whether the grant is a member of a shared lock's holders (a reader or a permit) rather than a string key. */
	boolean isSharedHolder() {
		return this.shared != null && !this.shared.isWriter();
	}

	/** The key the grant lives in: the lock's string, or the shared lock's holders. */
	String grantKey() {
		SharedLock shared = this.shared;
		return (shared != null && !shared.isWriter()) ? shared.holdersKey() : this.redisKey;
	}

	/** The holders' member "<holder id>|<token>" of a shared holder. */
	String member() {
		return this.holderPrefix + token();
	}

	@Override
	protected boolean verifyInStore() {
		return this.held.verify(this);
	}

	@Override
	public boolean release() {
		return this.held.release(this);
	}

	@Override
	public boolean releaseAfter(Duration ttl) {
		return this.held.releaseAfter(this, ttl);
	}

	@Override
	public boolean extend(Duration ttl) {
		return this.held.extend(this, ttl);
	}

}
