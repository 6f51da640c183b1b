package io.github.distlock.interceptor;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.Map;

import io.github.distlock.engine.LockHandle;

/**
 * The locks the current thread holds through {@code @DistributedLock}, innermost last. Lets a nested call to the
 * same lock enter at once and lets the running method see its lock.
 */
final class HeldLocks {

	private static final ThreadLocal<HeldLocks> CURRENT = ThreadLocal.withInitial(HeldLocks::new);

	private final Map<LockId, HeldLock> byId = new HashMap<>();

	private final Deque<HeldLock> stack = new ArrayDeque<>();

	static HeldLocks current() {
		return CURRENT.get();
	}

	/** The lock this thread already holds for this name and key, or null. */
	HeldLock find(String name, String key) {
		return this.byId.get(new LockId(name, key));
	}

	HeldLock add(LockHandle handle) {
		HeldLock held = new HeldLock(this, handle);
		this.byId.put(new LockId(handle.name(), handle.key()), held);
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
		this.byId.remove(new LockId(held.handle.name(), held.handle.key()), held);
		if (this.byId.isEmpty() && this.stack.isEmpty()) {
			CURRENT.remove();
		}
	}

	/** The innermost lock of the running method, or null. */
	HeldLock innermost() {
		return this.stack.peek();
	}

	private record LockId(String name, String key) {
	}

	/** One lock held by a thread, counted once per nested call (and once more while its release is deferred). */
	static final class HeldLock {

		final HeldLocks owner;

		final LockHandle handle;

		int holds;

		private HeldLock(HeldLocks owner, LockHandle handle) {
			this.owner = owner;
			this.handle = handle;
		}

	}

}
