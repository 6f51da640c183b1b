package io.github.distlock.benchmarks.lockserver;

import java.time.Duration;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;

import io.github.distlock.LockAcquisitionException;
import io.github.distlock.LockLostListener;
import io.github.distlock.engine.LockEngine;
import io.github.distlock.engine.LockHandle;
import io.github.distlock.engine.LockRequest;

/**
 * One of distlock's engines as an instance of a lock-server benchmark, with the lease and renewal the annotation has
 * by default; it counts the losses the engine reports.
 */
public final class EngineSystemLock implements SystemLock {

	private static final Duration LEASE = Duration.ofSeconds(30);

	private final LongAdder lost = new LongAdder();

	private final LockEngine engine;

	/**
	 * @param engine makes the engine on the instance's client, given the listener that counts its losses; the engine
	 * is closed with the instance when it is {@link AutoCloseable}
	 */
	public EngineSystemLock(Function<LockLostListener, LockEngine> engine) {
		this.engine = engine.apply((lostLock) -> this.lost.increment());
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

	/** Closes the engine (on etcd, revoking the instance's lease); the instance closes the client after. */
	@Override
	public void close() {
		if (this.engine instanceof AutoCloseable closeable) {
			try {
				closeable.close();
			}
			catch (Exception ex) {
				throw new IllegalStateException("Could not close " + this.engine, ex);
			}
		}
	}

}
