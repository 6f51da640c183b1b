package io.github.distlock.testing;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The {@link DistLocks} of the test methods running now, for {@link DistLockAssert}'s static methods. Not a
 * thread-local: the assertions are made from any thread, including the threads a locked method runs on.
 */
final class CurrentDistLocks {

	/** How many running test methods use each context's {@link DistLocks}. */
	private static final Map<DistLocks, Integer> running = new ConcurrentHashMap<>();

	private CurrentDistLocks() {
	}

	static void enter(DistLocks locks) {
		running.merge(locks, 1, Integer::sum);
	}

	static void leave(DistLocks locks) {
		running.computeIfPresent(locks, (ignored, count) -> (count == 1) ? null : count - 1);
	}

	/**
	 * @throws IllegalStateException when no test method of an {@code @AutoConfigureDistLock} test runs, or when test
	 * methods of several contexts run at once and it cannot be told which one asks
	 */
	static DistLocks get() {
		Set<DistLocks> current = Set.copyOf(running.keySet());
		if (current.size() == 1) {
			return current.iterator().next();
		}
		if (current.isEmpty()) {
			throw new IllegalStateException("DistLockAssert works while a test method of a test class annotated with "
					+ "@AutoConfigureDistLock runs (from any thread); elsewhere, use the DistLocks bean of the "
					+ "context");
		}
		throw new IllegalStateException("Test methods of " + current.size() + " application contexts with "
				+ "@AutoConfigureDistLock run at once, so DistLockAssert cannot tell which one to ask: inject the "
				+ "context's DistLocks bean and call its methods instead");
	}

}
