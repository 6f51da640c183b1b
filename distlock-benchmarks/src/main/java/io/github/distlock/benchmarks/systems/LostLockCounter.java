package io.github.distlock.benchmarks.systems;

import java.util.concurrent.atomic.AtomicLong;

import io.github.distlock.LockLostListener;
import io.github.distlock.LostLock;

/**
 * Counts the locks an annotated application lost: the annotation path reports losses only to listeners.
 */
public class LostLockCounter implements LockLostListener {

	private final AtomicLong lost = new AtomicLong();

	@Override
	public void onLockLost(LostLock lostLock) {
		this.lost.incrementAndGet();
	}

	public long count() {
		return this.lost.get();
	}

}
