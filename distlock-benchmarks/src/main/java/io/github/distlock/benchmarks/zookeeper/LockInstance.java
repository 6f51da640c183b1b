package io.github.distlock.benchmarks.zookeeper;

import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.state.ConnectionState;

/**
 * One application instance of a system under test: a ZooKeeper client (and so a session) of its own, and the
 * system's lock on it. Closing it closes both.
 */
final class LockInstance implements AutoCloseable {

	private final CuratorFramework client;

	private final ZooKeeperLock lock;

	private final LongAdder sessionInterruptions = new LongAdder();

	LockInstance(CuratorFramework client, Function<CuratorFramework, ZooKeeperLock> system) {
		this.client = client;
		client.getConnectionStateListenable().addListener((source, state) -> {
			if (state == ConnectionState.SUSPENDED || state == ConnectionState.LOST) {
				this.sessionInterruptions.increment();
			}
		});
		this.lock = system.apply(client);
	}

	ZooKeeperLock lock() {
		return this.lock;
	}

	/**
	 * Locks lost while held, as far as can be known: those the system reported, plus every suspension or loss of
	 * the session, during which a system that reports nothing may have lost what it held.
	 */
	long lostLocks() {
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
