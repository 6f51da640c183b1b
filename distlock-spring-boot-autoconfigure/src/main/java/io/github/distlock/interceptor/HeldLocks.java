package io.github.distlock.interceptor;

import java.util.ArrayDeque;
import java.util.Collection;
import java.util.Deque;
import java.util.HashMap;
import java.util.Map;

import io.micrometer.observation.Observation;

import io.github.distlock.OnLost;
import io.github.distlock.engine.LockHandle;

/**
 * The locks the current thread holds through {@code @DistributedLock}, innermost last. Lets a nested call to the
 * same lock enter at once and lets the running method see its lock.
 * <p>
 * Locks are told apart by scope (the interceptor that took them) as well as name and key: two application contexts
 * in one JVM are two lock holders, and one must not enter the other's lock.
 */
final class HeldLocks {

	private static final ThreadLocal<HeldLocks> CURRENT = new ThreadLocal<>();

	private final Map<LockId, HeldLock> byId = new HashMap<>();

	private final Deque<HeldLock> stack = new ArrayDeque<>();

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
		return this.byId.get(new LockId(scope, name, key));
	}

	HeldLock add(Object scope, LockHandle handle, OnLost onLost, Observation observation) {
		LockId id = new LockId(scope, handle.name(), handle.key());
		HeldLock held = new HeldLock(this, id, handle, onLost, observation);
		this.byId.put(id, held);
		return held;
	}

	void enter(HeldLock held) {
		held.holds++;
		this.stack.push(held);
	}

	/** @return whether that was the last hold, so the lock should now be released */
	boolean exit(HeldLock held) {
		this.stack.remove(held);
		return --held.holds == 0;
	}

	void forget(HeldLock held) {
		this.byId.remove(held.id, held);
		if (this.byId.isEmpty() && this.stack.isEmpty() && CURRENT.get() == this) {
			CURRENT.remove();
		}
	}

	/** Every lock this thread holds, including those whose release waits for a transaction. */
	Collection<HeldLock> all() {
		return this.byId.values();
	}

	/** The innermost lock of the running method, or null. */
	HeldLock innermost() {
		return this.stack.peek();
	}

	private record LockId(Object scope, String name, String key) {
	}

	/** One lock held by a thread, counted once per nested call (and once more while its release is deferred). */
	static final class HeldLock {

		final HeldLocks owner;

		private final LockId id;

		final LockHandle handle;

		final OnLost onLost;

		/** Times the hold, from acquisition to release. */
		final Observation observation;

		int holds;

		private HeldLock(HeldLocks owner, LockId id, LockHandle handle, OnLost onLost, Observation observation) {
			this.owner = owner;
			this.id = id;
			this.handle = handle;
			this.onLost = onLost;
			this.observation = observation;
		}

	}

}
