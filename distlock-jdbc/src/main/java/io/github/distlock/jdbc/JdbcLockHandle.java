package io.github.distlock.jdbc;

import java.time.Duration;

import io.github.distlock.engine.support.LeasedLockHandle;

/**
 * One acquisition of a lock in the lock table: its row and the holder id that proves this acquisition owns it.
 */
final class JdbcLockHandle extends LeasedLockHandle {

	private final HeldRows rows;

	final String lockId;

	final String holder;

	JdbcLockHandle(HeldRows rows, String name, String key, String lockId, String holder, long token,
			long acquiredAtNanos, long initialLeaseNanos, long leaseNanos, boolean renewable, long maxDeadlineNanos) {
		super(name, key, token, acquiredAtNanos, initialLeaseNanos, leaseNanos, renewable, maxDeadlineNanos);
		this.rows = rows;
		this.lockId = lockId;
		this.holder = holder;
	}

	@Override
	protected boolean verifyInStore() {
		return this.rows.verify(this);
	}

	@Override
	public boolean release() {
		return this.rows.release(this);
	}

	@Override
	public boolean releaseAfter(Duration ttl) {
		return this.rows.releaseAfter(this, ttl);
	}

	@Override
	public boolean extend(Duration ttl) {
		return this.rows.extend(this, ttl);
	}

}
