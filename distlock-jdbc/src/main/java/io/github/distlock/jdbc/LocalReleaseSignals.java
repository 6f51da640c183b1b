package io.github.distlock.jdbc;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Wakes the threads of this engine that wait for a lock when this engine releases it, so a hand-over inside one
 * instance takes no poll interval. Waiters in other instances poll the table. A {@link ReentrantLock} rather than a
 * monitor, so waiting virtual threads do not pin their carriers.
 */
final class LocalReleaseSignals {

	private final ConcurrentHashMap<String, Signal> signals = new ConcurrentHashMap<>();

	/**
	 * Waits until this engine releases the lock, or for at most the given time.
	 * @param seen the release count read before the attempt that failed, so a release in between is not missed
	 */
	void await(String lockId, long seen, long nanos) throws InterruptedException {
		Signal signal = this.signals.computeIfAbsent(lockId, (id) -> new Signal());
		signal.lock.lock();
		try {
			signal.waiters++;
			long remaining = nanos;
			while (signal.releases == seen && remaining > 0) {
				remaining = signal.released.awaitNanos(remaining);
			}
		}
		finally {
			signal.waiters--;
			if (signal.waiters == 0) {
				this.signals.remove(lockId, signal);
			}
			signal.lock.unlock();
		}
	}

	/** How many releases of the lock this engine has announced while someone waited: read before an attempt. */
	long releases(String lockId) {
		Signal signal = this.signals.get(lockId);
		if (signal == null) {
			return 0;
		}
		signal.lock.lock();
		try {
			return signal.releases;
		}
		finally {
			signal.lock.unlock();
		}
	}

	/** Wakes this engine's waiters for the lock, if any. */
	void released(String lockId) {
		Signal signal = this.signals.get(lockId);
		if (signal == null) {
			return;
		}
		signal.lock.lock();
		try {
			signal.releases++;
			signal.released.signalAll();
		}
		finally {
			signal.lock.unlock();
		}
	}

	private static final class Signal {

		final ReentrantLock lock = new ReentrantLock();

		final Condition released = this.lock.newCondition();

		long releases;

		int waiters;

	}

}
