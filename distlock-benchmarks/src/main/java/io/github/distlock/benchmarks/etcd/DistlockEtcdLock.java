package io.github.distlock.benchmarks.etcd;

import java.time.Duration;
import java.util.concurrent.atomic.LongAdder;

import io.etcd.jetcd.Client;
import io.github.distlock.LockAcquisitionException;
import io.github.distlock.benchmarks.lockserver.SystemLock;
import io.github.distlock.engine.LockHandle;
import io.github.distlock.engine.LockRequest;
import io.github.distlock.etcd.EtcdLockEngine;

/**
 * distlock's etcd engine with its defaults: one instance lease of {@link EtcdLockEngine#DEFAULT_LEASE_TTL}, and the
 * lease and renewal the annotation has by default.
 */
final class DistlockEtcdLock implements SystemLock {

	private static final Duration LEASE = Duration.ofSeconds(30);

	private final LongAdder lost = new LongAdder();

	private final EtcdLockEngine engine;

	DistlockEtcdLock(Client client) {
		this.engine = new EtcdLockEngine(client, EtcdLockEngine.DEFAULT_ROOT, EtcdLockEngine.DEFAULT_LEASE_TTL,
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

	/** Revokes the instance's lease; the instance closes the client after. */
	@Override
	public void close() {
		this.engine.close();
	}

}
