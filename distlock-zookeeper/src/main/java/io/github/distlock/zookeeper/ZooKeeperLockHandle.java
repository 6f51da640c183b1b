package io.github.distlock.zookeeper;

import java.time.Duration;

import io.github.distlock.engine.support.LeasedLockHandle;

/**
 * One acquisition of a lock in ZooKeeper: its own ephemeral sequential node, whose existence is the ownership.
 */
final class ZooKeeperLockHandle extends LeasedLockHandle {

	private final HeldNodes nodes;

	/** The full path of this acquisition's node. */
	final String node;

	/** The session that created the node (its ephemeral owner): the node lives as long as that session. */
	final long session;

	ZooKeeperLockHandle(HeldNodes nodes, String name, String key, String node, long token,
			long session, long acquiredAtNanos, long initialLeaseNanos, long leaseNanos, boolean renewable,
			long maxDeadlineNanos) {
		super(name, key, token, acquiredAtNanos, initialLeaseNanos, leaseNanos, renewable, maxDeadlineNanos);
		this.nodes = nodes;
		this.node = node;
		this.session = session;
	}

	@Override
	protected boolean verifyInStore() {
		return this.nodes.verify(this);
	}

	@Override
	public boolean release() {
		return this.nodes.release(this);
	}

	@Override
	public boolean extend(Duration ttl) {
		return this.nodes.extend(this, ttl);
	}

}
