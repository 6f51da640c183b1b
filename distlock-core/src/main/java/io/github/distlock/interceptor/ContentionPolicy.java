package io.github.distlock.interceptor;

import org.jspecify.annotations.Nullable;

/**
 * What a locked method's call does when its lock is already held: by the calling thread, enter it or, when not
 * reentrant, refuse at once; by another holder for the whole wait, call the fallback if the method names one (else
 * the application's {@link io.github.distlock.LockFailureHandler} decides).
 *
 * @param reentrant whether a call on a thread that holds the lock enters it
 * @param fallback the method to call when the lock stays busy, or null
 */
public record ContentionPolicy(boolean reentrant, @Nullable LockFallback fallback) {

	/** Reentrant, no fallback: what a declaration that sets neither gets. */
	public static final ContentionPolicy DEFAULT = new ContentionPolicy(true, null);

}
