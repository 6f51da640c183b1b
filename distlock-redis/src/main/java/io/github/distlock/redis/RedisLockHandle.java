package io.github.distlock.redis;

import java.time.Duration;

import io.github.distlock.engine.support.LeasedLockHandle;

/**
 * One acquisition of a Redis lock: where it lives and the value that proves its holder owns it.
 */
final class RedisLockHandle extends LeasedLockHandle {

	private final RedisLockEngine engine;

	final String redisKey;

	/** The lock's waiter queue, which a release hands the lock on from. */
	final String queueKey;

	/** "<holder id>|", the prefix of the stored value that proves ownership. */
	final String holderPrefix;

	RedisLockHandle(RedisLockEngine engine, String name, String key, String redisKey, String queueKey,
			String holderPrefix, long token,
			long acquiredAtNanos, long initialLeaseNanos, long leaseNanos, boolean renewable, long maxDeadlineNanos) {
		super(name, key, token, acquiredAtNanos, initialLeaseNanos, leaseNanos, renewable, maxDeadlineNanos);
		this.engine = engine;
		this.redisKey = redisKey;
		this.queueKey = queueKey;
		this.holderPrefix = holderPrefix;
	}

	@Override
	public boolean verify() {
		return this.engine.verify(this);
	}

	@Override
	public boolean release() {
		return this.engine.release(this);
	}

	@Override
	public boolean extend(Duration ttl) {
		return this.engine.extend(this, ttl);
	}

}
