package io.github.distlock.interceptor;

import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;

import io.micrometer.observation.Observation;

import io.github.distlock.OnLost;
import io.github.distlock.engine.LockHandle;

/**
 * The locks the current thread holds through {@code @DistributedLock} or the template, and which of them the
 * innermost running call holds. Lets a nested call to the same lock enter at once and lets the running call see its
 * lock. A lock kept by a running completion stage leaves this thread's locks when the call that started it returns.
 * <p>
 * Locks are told apart by scope (the {@link LockExecution} that took them) as well as name and key: two application
 * contexts in one JVM are two lock holders, and one must not enter the other's lock.
 */
final class HeldLocks {

	/**
	 * Set while the thread holds a lock and cleared (set to null) with its last one: a value left on a pooled thread
	 * would keep this application's class loader alive after it is undeployed. Cleared rather than removed, so that
	 * the next outermost call reuses the thread's map entry instead of allocating one; the entry left behind holds
	 * only a weak reference to a plain {@code ThreadLocal} and a null value, nothing of this application.
	 */
	private static final ThreadLocal<HeldLocks> CURRENT = new ThreadLocal<>();

	/** The thread's lock while it holds just one, the common case, which then needs no map. */
	private HeldLock only;

	/** Every lock, from the moment the thread holds a second one at the same time; null before. */
	private Map<LockId, HeldLock> several;

	/**
	 * The lock of the innermost running locked method. The frames of {@code enter} and {@code exit} keep the ones
	 * outside it, since locked calls on a thread nest strictly.
	 */
	private HeldLock innermost;

	/** This thread's locks, created on first use. */
	static HeldLocks current() {
		HeldLocks locks = CURRENT.get();
		if (locks == null) {
			locks = new HeldLocks();
			CURRENT.set(locks);
		}
		return locks;
	}

	/** This thread's locks, or null when it holds none. */
	static HeldLocks peek() {
		return CURRENT.get();
	}

	/** The lock this thread already holds in this scope for this name and key, or null. */
	HeldLock find(Object scope, String name, String key) {
		if (this.several != null) {
			return this.several.get(new LockId(scope, name, key));
		}
		return (this.only != null && this.only.id.is(scope, name, key)) ? this.only : null;
	}

	HeldLock add(Object scope, LockHandle handle, OnLost onLost, Observation observation) {
		LockId id = new LockId(scope, handle.name(), handle.key());
		HeldLock held = new HeldLock(this, id, handle, onLost, observation);
		if (this.several == null && this.only == null) {
			this.only = held;
			return held;
		}
		if (this.several == null) {
			this.several = new HashMap<>();
			this.several.put(this.only.id, this.only);
			this.only = null;
		}
		this.several.put(id, held);
		return held;
	}

	/**
	 * Makes the lock the innermost one, for a call that runs under it.
	 * @return the lock that was innermost, to hand back to {@link #exit}
	 */
	HeldLock enter(HeldLock held) {
		HeldLock outer = this.innermost;
		held.holds++;
		this.innermost = held;
		return outer;
	}

	/**
	 * Ends the call that {@link #enter} began.
	 * @param outer what {@code enter} returned
	 * @return whether that was the last hold, so the lock should now be released
	 */
	boolean exit(HeldLock held, HeldLock outer) {
		this.innermost = outer;
		return --held.holds == 0;
	}

	void forget(HeldLock held) {
		if (this.only == held) {
			this.only = null;
		}
		else if (this.several != null) {
			this.several.remove(held.id, held);
		}
		if (isEmpty() && CURRENT.get() == this) {
			CURRENT.set(null);
		}
	}

	private boolean isEmpty() {
		return this.only == null && (this.several == null || this.several.isEmpty()) && this.innermost == null;
	}

	/** Every lock this thread holds, including those whose release waits for a transaction. */
	Collection<HeldLock> all() {
		if (this.several != null) {
			return this.several.values();
		}
		return (this.only != null) ? List.of(this.only) : List.of();
	}

	/** The innermost lock of the running method, or null. */
	HeldLock innermost() {
		return this.innermost;
	}

	private record LockId(Object scope, String name, String key) {

		/** {@link #equals} without building a second id. */
		boolean is(Object scope, String name, String key) {
			return Objects.equals(this.scope, scope) && Objects.equals(this.name, name)
					&& Objects.equals(this.key, key);
		}

	}

	/**
	 * One lock held by a thread, counted once per nested call (and once more while its release is deferred), and
	 * kept beyond that by completion stages started under it.
	 */
	static final class HeldLock {

		final HeldLocks owner;

		private final LockId id;

		final LockHandle handle;

		final OnLost onLost;

		/** Times the hold, from acquisition to release. */
		final Observation observation;

		/** Nested calls on the owning thread, plus one while a transaction delays the release; that thread's alone. */
		int holds;

		/**
		 * Who keeps the lock from being released: one for the owning thread (until its holds end) and one per
		 * completion stage still running under it. The last to let go releases, on whichever thread that is.
		 */
		final AtomicInteger claims = new AtomicInteger(1);

		private HeldLock(HeldLocks owner, LockId id, LockHandle handle, OnLost onLost, Observation observation) {
			this.owner = owner;
			this.id = id;
			this.handle = handle;
			this.onLost = onLost;
			this.observation = observation;
		}

	}

}
