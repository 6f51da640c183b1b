package io.github.distlock.autoconfigure;

import io.github.distlock.LockStoreConnectionException;

/** What a failed start-up says, found where Spring wrapped it. */
final class StartupFailures {

	private StartupFailures() {
	}

	/** The start-up failure's distlock cause, which names the store's problem at the top. */
	static LockStoreConnectionException connectionFailure(Throwable failure) {
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			if (cause instanceof LockStoreConnectionException connection) {
				return connection;
			}
		}
		throw new AssertionError("Start-up did not fail with a LockStoreConnectionException", failure);
	}

}
