package io.github.distlock.zookeeper;

import java.time.Duration;
import java.util.concurrent.locks.ReentrantLock;

import io.github.distlock.engine.support.LeasedLockHandle;

/**
 * One acquisition of a lock in ZooKeeper: its own ephemeral sequential node, whose existence is the ownership.
 */
final class ZooKeeperLockHandle extends LeasedLockHandle {

	private final ZooKeeperLockEngine engine;

	/** The full path of this acquisition's node. */
	final String node;

	/** The session that created the node (its ephemeral owner): the node lives as long as that session. */
	final long session;

	/**
	 * Held while a loss is recorded and reported, so that every thread that finds the loss (the node's watch, a
	 * check, an extension, the release) returns only once it has been reported, whichever of them reports it.
	 */
	final ReentrantLock reporting = new ReentrantLock();

	ZooKeeperLockHandle(ZooKeeperLockEngine engine, String name, String key, String node, long token,
			long session, long acquiredAtNanos, long initialLeaseNanos, long leaseNanos, boolean renewable,
			long maxDeadlineNanos) {
		super(name, key, token, acquiredAtNanos, initialLeaseNanos, leaseNanos, renewable, maxDeadlineNanos);
		this.engine = engine;
		this.node = node;
		this.session = session;
	}

	@Override
	protected boolean verifyInStore() {
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
