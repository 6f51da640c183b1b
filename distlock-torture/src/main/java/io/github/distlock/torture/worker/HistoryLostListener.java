package io.github.distlock.torture.worker;

import io.github.distlock.LockLostListener;
import io.github.distlock.LostLock;

/**
 * Writes every loss the library reports into the worker's history, so the checker can tell an overlap the holder
 * was told about from one that went unnoticed.
 */
public final class HistoryLostListener implements LockLostListener {

	private final WorkerHistory history;

	public HistoryLostListener(WorkerHistory history) {
		this.history = history;
	}

	@Override
	public void onLockLost(LostLock lostLock) {
		this.history.lostReported(lostLock);
	}

}
