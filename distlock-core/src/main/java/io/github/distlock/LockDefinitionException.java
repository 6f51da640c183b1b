package io.github.distlock;

import org.jspecify.annotations.Nullable;

/**
 * A {@link DistributedLock} declaration that cannot work: an invalid key expression, a malformed or non-positive
 * duration (on the method or from its class's {@link DistributedLockConfig}), a method a proxy cannot intercept, a
 * method with two locks, a lock on a type, or a {@link DistributedLock#fallback() fallback} that is missing or does
 * not fit the method. Raised while the application starts.
 */
public class LockDefinitionException extends IllegalStateException {

	private final String method;

	public LockDefinitionException(String method, String problem, @Nullable Throwable cause) {
		this("@DistributedLock", method, problem, cause);
	}

	/**
	 * @param annotation the declaring annotation, as in {@code "@LeaderOnly"}
	 * @param method the method in {@code Class#method} form
	 * @param problem what is wrong, and how to put it right
	 */
	public LockDefinitionException(String annotation, String method, String problem, @Nullable Throwable cause) {
		super("Invalid " + annotation + " on " + method + ": " + problem, cause);
		this.method = method;
	}

	/** The method in {@code Class#method} form (the class alone for a lock on a type). */
	public String getMethod() {
		return this.method;
	}

}
