package io.github.distlock.execution;

import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;

import io.micrometer.observation.Observation;
import org.jspecify.annotations.Nullable;

import io.github.distlock.LockMode;
import io.github.distlock.OnLost;
import io.github.distlock.engine.LockHandle;
import io.github.distlock.engine.LockRequest;

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
	private @Nullable HeldLock only;

	/** Every lock, from the moment the thread holds a second one at the same time; null before. */
	private @Nullable Map<LockId, HeldLock> several;

	/**
	 * The lock of the innermost running locked method. The frames of {@code enter} and {@code exit} keep the ones
	 * outside it, since locked calls on a thread nest strictly.
	 */
	private @Nullable HeldLock innermost;

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
	static @Nullable HeldLocks peek() {
		return CURRENT.get();
	}

	/**
	 * The lock this thread already holds in this scope for this name and key, or null.
	 * @param name the lock's {@link #identity}
	 */
	@Nullable HeldLock find(Object scope, String name, String key) {
		if (this.several != null) {
			return this.several.get(new LockId(scope, name, key));
		}
		return (this.only != null && this.only.id.is(scope, name, key)) ? this.only : null;
	}

	HeldLock add(Object scope, LockHandle handle, OnLost onLost, Observation observation) {
		return put(new HeldLock(this, new LockId(scope, identity(handle), handle.key()), handle, onLost, observation,
				new AtomicInteger(1)));
	}

	/**
	 * The name a lock is told apart by here. The read and write locks of a name and key are one lock (a writer that
	 * reads enters its write lock), while that read/write lock and the permits of the same name and key are locks
	 * of their own, apart from the exclusive lock: entering one of them must never stand in for holding another.
	 */
	static String identity(String name, LockMode mode, int permits) {
		if (permits > 0) {
			return name + "\u0000permits";
		}
		return mode.isReadWrite() ? name + "\u0000read-write" : name;
	}

	static String identity(LockRequest request) {
		return identity(request.name(), request.mode(), request.permits());
	}

	static String identity(LockHandle handle) {
		return identity(handle.name(), handle.mode(), handle.permits());
	}

	/**
	 * A lock held by no thread yet: by a subscription to a reactive method, say. It starts with one claim, which its
	 * holder lets go of when its work ends.
	 */
	static HeldLock detached(Object scope, LockHandle handle, OnLost onLost, Observation observation) {
		return new HeldLock(null, new LockId(scope, identity(handle), handle.key()), handle, onLost, observation,
				new AtomicInteger(1));
	}

	/**
	 * Lets this thread run inside a lock held elsewhere (by a reactive subscription, or by the thread that started
	 * this thread's work), for which the caller has taken a claim: nested calls for it enter it, and
	 * {@link io.github.distlock.LockContext} sees it. The view it returns is this thread's own, counted in
	 * {@link HeldLock#holds} like a lock the thread acquired; its claim is let go when its holds end.
	 */
	HeldLock borrow(HeldLock held) {
		return put(new HeldLock(this, held.id, held.handle, held.onLost, held.observation, held.claims));
	}

	private HeldLock put(HeldLock held) {
		Map<LockId, HeldLock> several = this.several;
		if (several == null) {
			HeldLock only = this.only;
			if (only == null) {
				this.only = held;
				return held;
			}
			several = new HashMap<>();
			several.put(only.id, only);
			this.several = several;
			this.only = null;
		}
		several.put(held.id, held);
		return held;
	}

	/**
	 * Makes the lock the innermost one, for a call that runs under it.
	 * @return the lock that was innermost, to hand back to {@link #exit}
	 */
	@Nullable HeldLock enter(HeldLock held) {
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
	boolean exit(HeldLock held, @Nullable HeldLock outer) {
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
	@Nullable HeldLock innermost() {
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

		/** The thread's locks this view belongs to; null for a lock no thread holds. */
		final @Nullable HeldLocks owner;

		private final LockId id;

		final LockHandle handle;

		final OnLost onLost;

		/** Times the hold, from acquisition to release. */
		final Observation observation;

		/** Nested calls on the owning thread, plus one while a transaction delays the release; that thread's alone. */
		int holds;

		/**
		 * Who keeps the lock from being released: one for the owning thread (until its holds end), one per
		 * completion stage or reactive subscription still running under it, one per thread that borrowed it. Shared
		 * by every view of the lock; the last to let go releases, on whichever thread that is.
		 */
		final AtomicInteger claims;

		private HeldLock(@Nullable HeldLocks owner, LockId id, LockHandle handle, OnLost onLost,
				Observation observation, AtomicInteger claims) {
			this.owner = owner;
			this.id = id;
			this.handle = handle;
			this.onLost = onLost;
			this.observation = observation;
			this.claims = claims;
		}

		/** The lock execution that took the lock. */
		Object scope() {
			return this.id.scope();
		}

		/** Whether this is the lock of that scope, name and key. */
		boolean is(Object scope, String name, String key) {
			return this.id.is(scope, name, key);
		}

		/**
		 * Takes one more claim on the lock, so it stays held until that claim is let go too; refused once the last
		 * claim has been let go, when the lock is released or being released and must be acquired anew.
		 */
		boolean tryClaim() {
			for (int current = this.claims.get(); current > 0; current = this.claims.get()) {
				if (this.claims.compareAndSet(current, current + 1)) {
					return true;
				}
			}
			return false;
		}

	}

}
