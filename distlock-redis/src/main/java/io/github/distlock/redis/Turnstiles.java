package io.github.distlock.redis;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

import org.jspecify.annotations.Nullable;

/**
 * Lets one thread of this engine at a time wait in Redis for a given lock; the others line up here, first come
 * first served.
 * <p>
 * Redis hands a released lock to the first waiter of its queue. Were every local thread queued there, an
 * instance's threads would often follow one another and starve other instances for a whole round; with one queued
 * waiter per instance, consecutive holders alternate between instances, and the queue in Redis stays as short as the
 * number of instances. Local waiters cost Redis nothing: they try only once it is their turn.
 */
final class Turnstiles {

	/**
	 * How long a failed subscription stands before the next thread in line tries again: long enough that the threads
	 * in line do not retry it on every attempt, short enough that a lock that stays contended (its line never
	 * empties) is heard again soon after the cause is gone.
	 */
	static final long RESUBSCRIBE_AFTER_NANOS = TimeUnit.SECONDS.toNanos(1);

	private final ConcurrentHashMap<String, Turnstile> byLock = new ConcurrentHashMap<>();

	/**
	 * Waits for this thread's turn to wait in Redis for the lock.
	 * @return the turnstile passed, to {@link #leave} once the thread stops waiting in Redis; null when the wait
	 * ran out first
	 */
	@Nullable Turnstile pass(String lockKey, long timeoutNanos) throws InterruptedException {
		Turnstile turnstile = this.byLock.compute(lockKey, (key, current) -> {
			Turnstile result = (current != null) ? current : new Turnstile();
			result.users++;
			return result;
		});
		boolean passed = false;
		try {
			// Timed even when the timeout is zero: an untimed tryLock() would cut in front of threads already waiting.
			passed = turnstile.gate.tryLock(Math.max(0, timeoutNanos), TimeUnit.NANOSECONDS);
		}
		finally {
			if (!passed) {
				release(lockKey, turnstile);
			}
		}
		return passed ? turnstile : null;
	}

	/** Hands the turn to the next local thread, if any. */
	void leave(String lockKey, Turnstile turnstile) {
		turnstile.gate.unlock();
		release(lockKey, turnstile);
	}

	/** The signal of the thread waiting in Redis for the lock, or null when no thread of this engine waits for it. */
	ReleaseSignals.@Nullable Signal signal(String lockKey) {
		Turnstile turnstile = this.byLock.get(lockKey);
		return (turnstile != null) ? turnstile.signal : null;
	}

	/** Whether a thread is in line for the lock, for tests. */
	boolean inUse(String lockKey) {
		return this.byLock.containsKey(lockKey);
	}

	private void release(String lockKey, Turnstile turnstile) {
		boolean[] last = new boolean[1];
		this.byLock.computeIfPresent(lockKey, (key, current) -> {
			if (--current.users > 0) {
				return current;
			}
			last[0] = true;
			return null;
		});
		if (last[0]) {
			// Nobody of this engine is in line for the lock any more: stop hearing about it.
			turnstile.dropSubscription();
		}
	}

	/**
	 * The line for one lock: a fair gate, how many threads use it (guarded by the map's compute), and the
	 * announcements to whichever thread has passed the gate, with the subscription that brings them where the lock
	 * needs one of its own.
	 */
	static final class Turnstile {

		private final ReentrantLock gate = new ReentrantLock(true);

		private final ReleaseSignals.Signal signal = new ReleaseSignals.Signal();

		private int users;

		/**
		 * The subscription to the lock's announcements (Redis Cluster): made by the first thread in line that waits
		 * in Redis, kept for the threads after it, closed when the last one leaves; null before, and where the
		 * engine-wide channels need none.
		 */
		private volatile ReleaseAnnouncements.@Nullable Subscription subscription;

		/** When {@link #subscription} was made. */
		private volatile long subscribedAtNanos;

		/** Announcements to the thread that passed: only that thread waits in Redis. */
		ReleaseSignals.Signal signal() {
			return this.signal;
		}

		/**
		 * The subscription to use, or null when the caller must make one: none was made, the one made was dropped
		 * since, or it failed and was made {@link #RESUBSCRIBE_AFTER_NANOS} ago or longer (closed here in both
		 * cases). Only the thread that passed the gate calls this, and {@link #subscribe}.
		 */
		ReleaseAnnouncements.@Nullable Subscription subscription() {
			ReleaseAnnouncements.Subscription current = this.subscription;
			if (current != null && (current.dropped() || current.ready().isCompletedExceptionally()
					&& System.nanoTime() - this.subscribedAtNanos >= RESUBSCRIBE_AFTER_NANOS)) {
				dropSubscription();
				return null;
			}
			return current;
		}

		/** Whether the lock has a subscription of its own (Redis Cluster), whatever its state. */
		boolean hasSubscription() {
			return this.subscription != null;
		}

		/** Whether the subscription in use was dropped since: the thread waiting on it would hear nothing. */
		boolean subscriptionDropped() {
			ReleaseAnnouncements.Subscription current = this.subscription;
			return current != null && current.dropped();
		}

		void subscribe(ReleaseAnnouncements.Subscription subscription) {
			this.subscribedAtNanos = System.nanoTime();
			this.subscription = subscription;
		}

		/** Closes the subscription, if any; the next thread that waits in Redis makes a new one. */
		void dropSubscription() {
			ReleaseAnnouncements.Subscription dropped = this.subscription;
			this.subscription = null;
			if (dropped != null) {
				dropped.close();
			}
		}

	}

}
