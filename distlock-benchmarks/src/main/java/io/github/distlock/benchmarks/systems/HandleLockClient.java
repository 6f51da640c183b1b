package io.github.distlock.benchmarks.systems;

import java.util.ArrayList;
import java.util.List;

/**
 * A client over an explicit lock/unlock API: lock, run, unlock in {@code finally}, as application code would write
 * it. Subclasses only say how to acquire and release.
 *
 * @param <H> what a successful acquisition returns and a release needs
 */
abstract class HandleLockClient<H> implements LockClient {

	/** Acquires, waiting up to the wait time; null if it passed. */
	protected abstract H acquire(String key) throws InterruptedException;

	/** One attempt, no waiting; null if the lock is held elsewhere. */
	protected abstract H tryAcquire(String key);

	/** @return whether the lock was still held by this holder when released */
	protected abstract boolean release(H handle);

	@Override
	public boolean runLocked(String key, Runnable body) {
		H handle;
		try {
			handle = acquire(key);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while waiting for " + key, ex);
		}
		return runHolding(handle, body);
	}

	@Override
	public boolean tryRunLocked(String key, Runnable body) {
		return runHolding(tryAcquire(key), body);
	}

	/** Runs the body if the lock was acquired ({@code handle} not null), releasing it however the body ends. */
	private boolean runHolding(H handle, Runnable body) {
		if (handle == null) {
			return false;
		}
		try {
			body.run();
		}
		finally {
			release(handle);
		}
		return true;
	}

	@Override
	public long holdAll(List<String> keys, Runnable whileHeld) {
		List<H> held = new ArrayList<>(keys.size());
		long lost = 0;
		try {
			for (String key : keys) {
				H handle = acquire(key);
				if (handle == null) {
					throw new IllegalStateException("Could not acquire the free lock " + key);
				}
				held.add(handle);
			}
			whileHeld.run();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
		finally {
			for (H handle : held) {
				try {
					if (!release(handle)) {
						lost++;
					}
				}
				catch (RuntimeException ex) {
					// A library that throws on releasing an expired lock: that lock was lost.
					lost++;
				}
			}
		}
		return lost;
	}

}
