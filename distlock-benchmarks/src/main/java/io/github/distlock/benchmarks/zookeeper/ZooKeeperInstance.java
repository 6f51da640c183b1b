package io.github.distlock.benchmarks.zookeeper;

import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.state.ConnectionState;

import io.github.distlock.benchmarks.lockserver.LockInstance;
import io.github.distlock.benchmarks.lockserver.SystemLock;

/**
 * One application instance of a system under test on ZooKeeper: a client (and so a session) of its own, and the
 * system's lock on it. Closing it closes both.
 */
final class ZooKeeperInstance implements LockInstance {

	private final CuratorFramework client;

	private final SystemLock lock;

	private final LongAdder sessionInterruptions = new LongAdder();

	ZooKeeperInstance(CuratorFramework client, Function<CuratorFramework, SystemLock> system) {
		this.client = client;
		client.getConnectionStateListenable().addListener((source, state) -> {
			if (state == ConnectionState.SUSPENDED || state == ConnectionState.LOST) {
				this.sessionInterruptions.increment();
			}
		});
		this.lock = system.apply(client);
	}

	@Override
	public SystemLock lock() {
		return this.lock;
	}

	/**
	 * Those the system reported, plus every suspension or loss of the session, during which a system that reports
	 * nothing may have lost what it held.
	 */
	@Override
	public long lostLocks() {
		return this.lock.lostLocks() + this.sessionInterruptions.sum();
	}

	@Override
	public void close() {
		try {
			this.lock.close();
		}
		finally {
			this.client.close();
		}
	}

}
