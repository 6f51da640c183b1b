package io.github.distlock.integration;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import org.jspecify.annotations.Nullable;
import org.springframework.integration.support.locks.DistributedLock;

import io.github.distlock.LockAcquisitionException;
import io.github.distlock.LostLock;
import io.github.distlock.engine.LockEngine;
import io.github.distlock.engine.LockHandle;
import io.github.distlock.engine.LockRequest;

/**
 * One key's lock of a {@link DistLockRegistry}, which says what its methods do. Threads of this process queue on a
 * local {@link ReentrantLock} first, so the store sees one holder per process and key; the thread that gets it takes
 * the lock in the store with its first hold and releases it there with its last {@code unlock()}. Nested holds cost no
 * round trip. A hold lost in the store is told to the holding thread once (see {@link #holdInStore} and
 * {@link #unlock()}).
 */
final class RegistryLock implements DistributedLock {

	/** How long one acquisition of an unbounded wait waits before it asks again: long, as each ask is a new queue. */
	private static final Duration UNBOUNDED_WAIT_STEP = Duration.ofDays(1);

	private final LockEngine engine;

	private final String name;

	private final String key;

	private final Duration lease;

	private final ReentrantLock local = new ReentrantLock();

	/** The hold in the store; only the thread that holds {@link #local} reads or writes it. */
	private @Nullable LockHandle handle;

	/** Whether the holding thread has been told that its hold was lost; the same thread only. */
	private boolean lossTold;

	/** When a thread last locked or tried to: an unused lock object may be evicted from the registry. */
	private volatile long lastUsedNanos = System.nanoTime();

	RegistryLock(LockEngine engine, String name, String key, Duration lease) {
		this.engine = engine;
		this.name = name;
		this.key = key;
		this.lease = lease;
	}

	@Override
	public void lock() {
		lock(this.lease);
	}

	@Override
	public void lock(Duration ttl) {
		boolean interrupted = false;
		this.local.lock();
		try {
			while (true) {
				try {
					if (holdInStore(ttl, null)) {
						break;
					}
				}
				catch (InterruptedException ex) {
					// lock() is not interruptible: the interrupt is kept for the caller to see once it has the lock.
					interrupted = true;
				}
			}
		}
		catch (RuntimeException ex) {
			this.local.unlock();
			throw ex;
		}
		finally {
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

	@Override
	public void lockInterruptibly() throws InterruptedException {
		this.local.lockInterruptibly();
		try {
			while (!holdInStore(this.lease, null)) {
				// Each attempt waits a day; an unbounded wait asks again.
			}
		}
		catch (InterruptedException | RuntimeException ex) {
			this.local.unlock();
			throw ex;
		}
	}

	@Override
	public boolean tryLock() {
		if (!this.local.tryLock()) {
			return false;
		}
		try {
			return tryInStore(this.lease, Duration.ZERO);
		}
		catch (InterruptedException ex) {
			// A wait of zero does not wait, but an engine may still see the flag: keep it for the caller. The local
			// lock was given back by tryInStore.
			Thread.currentThread().interrupt();
			return false;
		}
	}

	@Override
	public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
		return tryLock(Duration.ofNanos(unit.toNanos(time)), this.lease);
	}

	@Override
	public boolean tryLock(Duration waitTime, Duration ttl) throws InterruptedException {
		long start = System.nanoTime();
		if (!this.local.tryLock(Math.max(0, waitTime.toNanos()), TimeUnit.NANOSECONDS)) {
			return false;
		}
		Duration left = Duration.ofNanos(Math.max(0, waitTime.toNanos() - (System.nanoTime() - start)));
		return tryInStore(ttl, left);
	}

	/** With the local lock held: the store's lock, or false (the local lock given back) when it is held elsewhere. */
	private boolean tryInStore(Duration ttl, Duration waitTime) throws InterruptedException {
		try {
			if (holdInStore(ttl, waitTime)) {
				return true;
			}
		}
		catch (InterruptedException | RuntimeException ex) {
			this.local.unlock();
			throw ex;
		}
		this.local.unlock();
		return false;
	}

	/**
	 * Called with the local lock just taken by this thread: takes the lock in the store with its first hold, waiting
	 * up to {@code waitTime} (a day when null), and checks on a nested hold that the first is not lost.
	 * @return false when the wait ran out with the lock held elsewhere
	 * @throws IllegalStateException (the nested hold given back) if this thread's hold was lost
	 */
	private boolean holdInStore(Duration ttl, @Nullable Duration waitTime) throws InterruptedException {
		this.lastUsedNanos = System.nanoTime();
		LockHandle held = this.handle;
		if (held != null) {
			if (held.isLost()) {
				this.lossTold = true;
				throw new IllegalStateException(lostMessage(held));
			}
			return true;
		}
		LockRequest request = new LockRequest(this.name, this.key, ttl,
				(waitTime != null) ? waitTime : UNBOUNDED_WAIT_STEP, true, null);
		try {
			this.handle = this.engine.acquire(request);
			this.lossTold = false;
			return true;
		}
		catch (LockAcquisitionException ex) {
			if (ex.getCause() != null) {
				// Not a lock held elsewhere: the store could not be reached.
				throw ex;
			}
			return false;
		}
	}

	/**
	 * Ends one hold of the calling thread; the last releases the lock in the store.
	 * @throws IllegalStateException if the calling thread holds no hold, or (after releasing everything) the lock was
	 * lost while held and the thread has not been told yet
	 */
	@Override
	public void unlock() {
		if (!this.local.isHeldByCurrentThread()) {
			throw new IllegalStateException("The lock '" + this.key + "' of DistLockRegistry '" + this.name
					+ "' is not held by the current thread");
		}
		if (this.local.getHoldCount() > 1) {
			this.local.unlock();
			return;
		}
		LockHandle held = this.handle;
		boolean told = this.lossTold;
		this.handle = null;
		this.lossTold = false;
		try {
			if (held != null && !held.release() && !told) {
				throw new IllegalStateException(lostMessage(held));
			}
		}
		finally {
			this.local.unlock();
		}
	}

	/** See {@link DistLockRegistry#renewLock(Object, Duration)}; the calling thread holds the lock. */
	void renew(@Nullable Duration ttl) {
		LockHandle held = heldInStore();
		boolean renewed;
		try {
			renewed = held.extend((ttl != null) ? ttl : this.lease);
		}
		catch (UnsupportedOperationException ex) {
			// An engine without extensions still renews the lock itself: ask the store that it is still ours.
			renewed = held.verify();
		}
		if (!renewed) {
			throw new IllegalStateException(held.isLost() ? lostMessage(held)
					: "The lock '" + this.key + "' of DistLockRegistry '" + this.name + "' could not be renewed: the "
							+ "store did not confirm it (its lease still runs, and the watchdog renews it)");
		}
	}

	/** The token of the calling thread's hold; the calling thread holds the lock. */
	long token() {
		return heldInStore().token();
	}

	/** The calling thread's hold in the store; the calling thread holds the local lock. */
	private LockHandle heldInStore() {
		LockHandle held = this.handle;
		if (held == null) {
			// Only between a failed first acquisition and its local unlock, which the same thread does.
			throw new IllegalStateException("The lock '" + this.key + "' of DistLockRegistry '" + this.name
					+ "' is not held in the store");
		}
		return held;
	}

	boolean isHeldByCurrentThread() {
		return this.local.isHeldByCurrentThread();
	}

	/** How long no thread has held or tried this lock, at {@code nowNanos}; zero while it is held or awaited. */
	long unusedFor(long nowNanos) {
		if (this.local.isLocked() || this.local.hasQueuedThreads()) {
			return 0;
		}
		return nowNanos - this.lastUsedNanos;
	}

	private String lostMessage(LockHandle held) {
		LostLock.Reason reason = held.lossReason();
		return "The lock '" + this.key + "' of DistLockRegistry '" + this.name + "' (token " + held.token()
				+ ") was lost while held" + ((reason != null) ? " (" + reason + ")" : "") + ": another holder may "
				+ "have had it since, and the work it protects may have run unprotected";
	}

	@Override
	public Condition newCondition() {
		throw new UnsupportedOperationException("DistLockRegistry locks have no conditions");
	}

	@Override
	public String toString() {
		return "DistLockRegistry lock '" + this.key + "' of '" + this.name + "'";
	}

}
