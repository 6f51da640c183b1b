package io.github.distlock.benchmarks.zookeeper;

import java.time.Duration;
import java.util.concurrent.atomic.LongAdder;

import org.apache.curator.framework.CuratorFramework;

import io.github.distlock.LockAcquisitionException;
import io.github.distlock.benchmarks.lockserver.SystemLock;
import io.github.distlock.engine.LockHandle;
import io.github.distlock.engine.LockRequest;
import io.github.distlock.zookeeper.ZooKeeperLockEngine;

/** distlock's ZooKeeper engine, with the lease and renewal the annotation has by default. */
final class DistlockZooKeeperLock implements SystemLock {

	private static final Duration LEASE = Duration.ofSeconds(30);

	private final LongAdder lost = new LongAdder();

	private final ZooKeeperLockEngine engine;

	DistlockZooKeeperLock(CuratorFramework client) {
		this.engine = new ZooKeeperLockEngine(client, ZooKeeperLockEngine.DEFAULT_ROOT,
				(lostLock) -> this.lost.increment());
	}

	@Override
	public Held lock(String key, Duration wait) throws InterruptedException {
		try {
			LockHandle handle = this.engine.acquire(new LockRequest("bench", key, LEASE, wait, true, null));
			return handle::release;
		}
		catch (LockAcquisitionException ex) {
			return null;
		}
	}

	@Override
	public long lostLocks() {
		return this.lost.sum();
	}

	@Override
	public void close() {
		this.engine.close();
	}

}
