package io.github.distlock.jdbc;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Wakes the threads of this engine that wait for a lock when it is released: by this engine, or, on PostgreSQL, by
 * any instance ({@link PostgreSqlReleaseListener}). A waiter registers before its first attempt, so a release between
 * that attempt and its wait is not missed. A {@link ReentrantLock} rather than a monitor, so waiting virtual threads
 * do not pin their carriers.
 * <p>
 * Waiters of one engine for one lock also take turns: only the thread whose turn it is asks the database, the others
 * line up here, first come first served. A release then meets one attempt per instance rather than one per thread,
 * and threads of one instance do not overtake each other.
 */
final class LocalReleaseSignals {

	private final ConcurrentHashMap<String, Signal> signals = new ConcurrentHashMap<>();

	/** Registers a waiter for the lock; close it when done waiting. */
	Waiter open(String lockId) {
		// compute() runs atomically per key, so a waiter count never reaches a signal that was just dropped.
		Signal signal = this.signals.compute(lockId, (id, existing) -> {
			Signal registered = (existing != null) ? existing : new Signal();
			registered.waiters++;
			return registered;
		});
		return new Waiter(lockId, signal);
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

	/** One thread's wait for one lock, from before its first attempt until it has the lock or gives up. */
	final class Waiter implements AutoCloseable {

		private final String lockId;

		private final Signal signal;

		private long seen;

		private boolean hasTurn;

		private Waiter(String lockId, Signal signal) {
			this.lockId = lockId;
			this.signal = signal;
			signal.lock.lock();
			try {
				this.seen = signal.releases;
			}
			finally {
				signal.lock.unlock();
			}
		}

		/**
		 * Waits for this thread's turn to ask the database for the lock, behind the engine's other threads waiting
		 * for it.
		 * @return whether the turn came within the time
		 */
		boolean awaitTurn(long nanos) throws InterruptedException {
			// Timed even for zero: an untimed tryLock() would cut in front of threads already in line.
			this.hasTurn = this.signal.turn.tryLock(Math.max(0, nanos), TimeUnit.NANOSECONDS);
			return this.hasTurn;
		}

		/**
		 * Waits until the lock is released after the last wait (or the registration), or for at most the given time.
		 * @return whether a release was seen
		 */
		boolean await(long nanos) throws InterruptedException {
			this.signal.lock.lock();
			try {
				long remaining = nanos;
				while (this.signal.releases == this.seen && remaining > 0) {
					remaining = this.signal.released.awaitNanos(remaining);
				}
				boolean released = this.signal.releases != this.seen;
				this.seen = this.signal.releases;
				return released;
			}
			finally {
				this.signal.lock.unlock();
			}
		}

		@Override
		public void close() {
			if (this.hasTurn) {
				this.hasTurn = false;
				this.signal.turn.unlock();
			}
			LocalReleaseSignals.this.signals.compute(this.lockId, (id, existing) -> {
				existing.waiters--;
				return (existing.waiters == 0) ? null : existing;
			});
		}

	}

	private static final class Signal {

		final ReentrantLock lock = new ReentrantLock();

		final Condition released = this.lock.newCondition();

		/** Whose turn it is to ask the database; fair, so the engine's waiters take turns in arrival order. */
		final ReentrantLock turn = new ReentrantLock(true);

		/** Written under {@link #lock}. */
		long releases;

		/** Written only inside {@link ConcurrentHashMap#compute}. */
		int waiters;

	}

}
