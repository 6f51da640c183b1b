package io.github.distlock;

import java.lang.reflect.Method;

import org.jspecify.annotations.Nullable;

/**
 * The application's answer to a {@link DistributedLock} method whose lock stayed held by another holder for the
 * whole wait time, when the method declares no {@link DistributedLock#fallback() fallback}. Define one bean of this
 * type (two without a primary one fail start-up); without one the call throws the {@link LockAcquisitionException}.
 * <p>
 * Only a busy lock reaches the handler: an unreachable Redis or an interrupted wait throws as always, and a lost
 * lock is handled by {@link DistributedLock#onLost()}. The method did not run.
 *
 * <pre>{@code
 * @Bean
 * LockFailureHandler lockBusy() {
 *     return (failure, method, args) -> {
 *         throw new ResponseStatusException(HttpStatus.CONFLICT, failure.getMessage(), failure);
 *     };
 * }
 * }</pre>
 */
@FunctionalInterface
public interface LockFailureHandler {

	/**
	 * Handles a call whose lock was not acquired.
	 * @param failure why: the lock's name and key, how long the call waited
	 * @param method the locked method
	 * @param args the call's arguments
	 * @return what the caller receives in place of the method's result: a value of the method's return type (null
	 * for {@code void}); anything else fails the call with {@link IllegalStateException}
	 * @throws RuntimeException what the caller receives instead, such as {@code failure} itself
	 */
	@Nullable Object handleNotAcquired(LockAcquisitionException failure, Method method, @Nullable Object[] args);

}
