package io.github.distlock.benchmarks.scenarios;

import io.github.distlock.benchmarks.systems.LockClient;

/**
 * The two single lock calls the scenarios time and count, each checked for the outcome the scenario is built on: a
 * measurement of calls that went otherwise would measure something else.
 */
final class LockCalls {

	/** The critical section: empty, so that only the locking around it is measured. */
	static final Runnable NOTHING = () -> {
	};

	private LockCalls() {
	}

	/** Locks and unlocks a key nobody else holds; it must be acquired at once. */
	static void lockFree(LockClient client, String key) {
		if (!client.runLocked(key, NOTHING)) {
			throw new IllegalStateException("An uncontended lock was not acquired: " + key);
		}
	}

	/** Tries, without waiting, a key another client holds; it must be refused. */
	static void tryHeld(LockClient client, String key) {
		if (client.tryRunLocked(key, NOTHING)) {
			throw new IllegalStateException("A try-lock acquired a lock held by another client: " + key);
		}
	}

}
