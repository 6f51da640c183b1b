package io.github.distlock.etcd;

import java.time.Duration;

import io.etcd.jetcd.ByteSequence;
import org.jspecify.annotations.Nullable;
import io.github.distlock.engine.support.LeasedLockHandle;

/**
 * One acquisition of a lock in etcd: its own key in the lock's queue, attached to the instance's lease. The key's
 * existence with its create revision (the token) is the ownership.
 */
final class EtcdLockHandle extends LeasedLockHandle {

	private final HeldKeys keys;

	/** This acquisition's key. */
	final ByteSequence ownKey;

	/** The holder id: the last part of the key, and its value. */
	final String holder;

	/** The instance lease the key is attached to: when it ends, so does the lock. */
	final InstanceLease lease;

	/** The watch that reports a deletion of the key from outside; set once, just after acquisition. */
	private volatile @Nullable KeyDeletionWatch watch;

	EtcdLockHandle(HeldKeys keys, String name, String key, ByteSequence ownKey, String holder,
			InstanceLease lease, long token, long acquiredAtNanos, long initialLeaseNanos, long leaseNanos,
			boolean renewable, long maxDeadlineNanos) {
		super(name, key, token, acquiredAtNanos, initialLeaseNanos, leaseNanos, renewable, maxDeadlineNanos);
		this.keys = keys;
		this.ownKey = ownKey;
		this.holder = holder;
		this.lease = lease;
	}

	/** Keeps the watch on the key, closed at once should the lock be done with already. */
	void watchedBy(KeyDeletionWatch watch) {
		this.watch = watch;
		if (!isHeld()) {
			watch.close();
		}
	}

	/** Stops watching the key: it is released or lost. */
	void stopWatching() {
		KeyDeletionWatch watch = this.watch;
		if (watch != null) {
			watch.close();
		}
	}

	@Override
	protected boolean verifyInStore() {
		return this.keys.verify(this);
	}

	@Override
	public boolean release() {
		return this.keys.release(this);
	}

	@Override
	public boolean extend(Duration ttl) {
		return this.keys.extend(this, ttl);
	}

}
