package io.github.distlock.interceptor;

import io.github.distlock.LostLock;
import io.github.distlock.engine.LockHandle;

/**
 * A held lock that never is lost and needs no store, with token 1, for tests of the interceptor's own bookkeeping
 * and of what the core does with a handle.
 *
 * @param name the lock's name
 * @param key the lock's key
 * @param onRelease run on each release
 */
public record StubLockHandle(String name, String key, Runnable onRelease) implements LockHandle {

	public StubLockHandle(String name, String key) {
		this(name, key, () -> {
		});
	}

	@Override
	public long token() {
		return 1;
	}

	@Override
	public long leaseDeadlineNanos() {
		return System.nanoTime();
	}

	@Override
	public LostLock.Reason lossReason() {
		return null;
	}

	@Override
	public boolean verify() {
		return true;
	}

	@Override
	public void whenLost(Runnable action) {
	}

	@Override
	public boolean release() {
		this.onRelease.run();
		return true;
	}

}
