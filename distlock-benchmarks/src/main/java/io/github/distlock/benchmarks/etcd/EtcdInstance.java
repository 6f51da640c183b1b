package io.github.distlock.benchmarks.etcd;

import io.etcd.jetcd.Client;
import io.github.distlock.benchmarks.lockserver.LockInstance;
import io.github.distlock.benchmarks.lockserver.SystemLock;

/**
 * One application instance of a system under test on etcd: a jetcd client of its own and the system's lock on it.
 * Closing it closes the lock first (which revokes its leases), then the client.
 */
final class EtcdInstance implements LockInstance {

	private final Client client;

	private final SystemLock lock;

	EtcdInstance(Client client, SystemLock lock) {
		this.client = client;
		this.lock = lock;
	}

	@Override
	public SystemLock lock() {
		return this.lock;
	}

	/**
	 * What the system reported: both systems hold their locks through leases, and both tell when a lease ends under
	 * them, which is how a lock on etcd is lost.
	 */
	@Override
	public long lostLocks() {
		return this.lock.lostLocks();
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
