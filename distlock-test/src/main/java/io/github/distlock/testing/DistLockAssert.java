package io.github.distlock.testing;

/**
 * Assertions on the locks of the running test's store, by name and key, whichever instance holds them:
 *
 * <pre>{@code
 * DistLockAssert.assertHeld("order", "42");
 * DistLockAssert.assertNotHeld("order", "42");
 * }</pre>
 *
 * They work while a test method of a test class with {@link AutoConfigureDistLock} runs, from any thread, and ask the
 * {@link DistLocks} bean of that test's context; to expire or take a lock, inject that bean.
 */
public final class DistLockAssert {

	private DistLockAssert() {
	}

	/**
	 * Asserts that the store holds the lock, by whichever instance.
	 * @return the lock as stored, to check its token or holder further
	 * @throws AssertionError naming the lock and its Redis key when it is free
	 * @see DistLocks#assertHeld
	 */
	public static StoredLock assertHeld(String name, String key) {
		return CurrentDistLocks.get().assertHeld(name, key);
	}

	/**
	 * Asserts that the store does not hold the lock, by any instance.
	 * @throws AssertionError naming the lock and who holds it
	 * @see DistLocks#assertNotHeld
	 */
	public static void assertNotHeld(String name, String key) {
		CurrentDistLocks.get().assertNotHeld(name, key);
	}

}
