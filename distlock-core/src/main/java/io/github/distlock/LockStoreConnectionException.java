package io.github.distlock;

import org.jspecify.annotations.Nullable;

/**
 * distlock could not set up its connection to the lock store at start-up: the store refused the credentials, its
 * TLS certificate was not trusted or did not match the host, it speaks another protocol than the client expects, it
 * did not answer, or the user lacks a permission distlock needs. The message names the cause first;
 * {@link #getAction()} says what to change. Thrown once, at start-up, within about one connect timeout, and never
 * with a password in it.
 */
public class LockStoreConnectionException extends RuntimeException {

	private final String store;

	private final String action;

	/**
	 * @param store the store as configured, such as {@code "Redis at redis://10.0.0.5:6379"}, without credentials
	 * @param message the cause, shown to users as it is
	 * @param action what to change
	 */
	public LockStoreConnectionException(String store, String message, String action, @Nullable Throwable cause) {
		super(message, cause);
		this.store = store;
		this.action = action;
	}

	/** The store distlock tried to reach, as configured. */
	public String getStore() {
		return this.store;
	}

	/** What to change so that the connection succeeds. */
	public String getAction() {
		return this.action;
	}

}
