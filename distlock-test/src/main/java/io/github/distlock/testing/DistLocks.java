package io.github.distlock.testing;

import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

import io.github.distlock.engine.DisplayedKey;
import io.github.distlock.engine.HeldLockView;
import io.github.distlock.engine.InspectableLockEngine;

/**
 * The locks of a test context's store, seen and handled as another instance would: whoever holds a lock (this
 * application, another instance), the answers come from Redis itself. A bean of every context with
 * {@link AutoConfigureDistLock}; {@link DistLockAssert} offers the assertions as static methods.
 * <p>
 * Exclusive locks only (the default {@code mode}); read/write locks and permits are stored otherwise.
 */
public final class DistLocks implements AutoCloseable {

	private final StoredLocks store;

	private final InspectableLockEngine engine;

	private final AnotherInstance anotherInstance;

	DistLocks(StoredLocks store, InspectableLockEngine engine, AnotherInstance anotherInstance) {
		this.store = store;
		this.engine = engine;
		this.anotherInstance = anotherInstance;
	}

	/** The lock as the store holds it now, by whichever instance; empty when it is free. */
	public Optional<StoredLock> find(String name, String key) {
		return Optional.ofNullable(this.store.find(name, key));
	}

	/** Whether the store holds the lock now, by whichever instance. */
	public boolean isHeld(String name, String key) {
		return find(name, key).isPresent();
	}

	/**
	 * Asserts that the store holds the lock, by whichever instance.
	 * @return the lock as stored, to check its token or holder further
	 * @throws AssertionError naming the lock and its Redis key when it is free
	 */
	public StoredLock assertHeld(String name, String key) {
		StoredLock lock = this.store.find(name, key);
		if (lock == null) {
			throw new AssertionError("Expected lock " + describe(name, key) + " to be held, but Redis has no such "
					+ "lock (" + this.store.redisKey(name, key) + "); " + heldHere());
		}
		return lock;
	}

	/**
	 * Asserts that the store does not hold the lock, by any instance.
	 * @throws AssertionError naming the lock, who holds it, its holder id, token and remaining lease
	 */
	public void assertNotHeld(String name, String key) {
		StoredLock lock = this.store.find(name, key);
		if (lock != null) {
			throw new AssertionError("Expected lock " + describe(name, key) + " not to be held, but " + holderOf(lock)
					+ " holds it (holder " + lock.holder() + ", token " + lock.token() + ", "
					+ lock.timeToLive().toMillis() + " ms of lease left)");
		}
	}

	/**
	 * Makes a held lock vanish from the store as if its lease had run out. Its holder finds out as from a real
	 * expiry: at its next renewal (a third of its lease), when it verifies the lock before a commit, or when it
	 * releases it. A locked method then reacts as its {@code onLost} says: listeners are told, and the call ends with
	 * {@code LockLostException}.
	 * @return the lock that vanished
	 * @throws AssertionError if the store holds no such lock
	 */
	public StoredLock expire(String name, String key) {
		StoredLock lock = this.store.expire(name, key);
		if (lock == null) {
			throw new AssertionError("Cannot expire lock " + describe(name, key) + ": Redis has no such lock ("
					+ this.store.redisKey(name, key) + "); " + heldHere());
		}
		return lock;
	}

	/**
	 * Lets another instance take the lock, held or not: the present holder's lock is removed (as by
	 * {@link #expire}) and another holder acquires it at once, with a larger fencing token, as a second instance
	 * would after the first one's lease ran out. The former holder finds its lock lost as after an expiry, and a
	 * downstream write fenced by token refuses it once the new holder has written.
	 * <p>
	 * The new holder keeps the lock (renewed) until {@link TakenLock#release()}, or until the test method ends.
	 * @throws IllegalStateException if a waiting caller took the lock first
	 */
	public TakenLock take(String name, String key) {
		this.store.expire(name, key);
		return this.anotherInstance.take(name, key);
	}

	/** Releases what {@link #take} took; the test support calls it at the end of each test method. */
	void releaseTaken() {
		this.anotherInstance.releaseAll();
	}

	@Override
	public void close() {
		this.anotherInstance.close();
	}

	private String holderOf(StoredLock lock) {
		if (this.engine.heldLocks().stream().anyMatch((held) -> held.holder().equals(lock.holder()))) {
			return "this application";
		}
		if (this.anotherInstance.holds(lock.holder())) {
			return "the other holder that DistLocks.take gave it to";
		}
		return "another instance";
	}

	private String heldHere() {
		List<HeldLockView> held = this.engine.heldLocks();
		if (held.isEmpty()) {
			return "this application holds no lock now";
		}
		return "this application holds " + held.stream()
			.map((lock) -> describe(lock.name(), lock.key()))
			.collect(Collectors.joining(", "));
	}

	private static String describe(String name, String key) {
		return "'" + name + "' for key '" + DisplayedKey.of(key) + "'";
	}

}
