package io.github.distlock.interceptor;

import java.lang.reflect.Method;
import java.time.Duration;

import org.jspecify.annotations.Nullable;
import org.springframework.expression.Expression;

import io.github.distlock.LockMode;
import io.github.distlock.OnLost;
import io.github.distlock.engine.LockRequest;

/**
 * A parsed {@code @DistributedLock} declaration of one method on one target class: the key expression compiled,
 * durations resolved and checked. Built once per method; a call only evaluates the key.
 *
 * @param methodId the method as {@code SimpleClassName#method}, for messages
 * @param method the most specific method, whose parameter names the key expression uses
 * @param name the lock's namespace
 * @param keyText the key expression as written
 * @param key the parsed key expression
 * @param keyArgument the index of the argument the key expression merely refers to (as in {@code #id}), which a
 * call then takes without evaluating the expression; or {@link KeyArgument#NONE}
 * @param lease the lease
 * @param waitTime how long to wait for the lock
 * @param autoRenew whether the watchdog renews the lease
 * @param maxLease the renewal ceiling, or null for none
 * @param onLost what a lost lock does to the call; never {@link OnLost#DEFAULT}
 * @param call how the method is run for its return type: how long the lock is held
 * @param contention what a call does when the lock is already held: re-enter or refuse, fall back or not
 * @param mode exclusive, or a side of a read/write lock
 * @param permits when positive, how many holders the lock admits at a time; zero for a plain lock
 */
public record LockOperation(String methodId, Method method, String name, String keyText, Expression key,
		int keyArgument, Duration lease, Duration waitTime, boolean autoRenew, @Nullable Duration maxLease,
		OnLost onLost, LockedCall call, ContentionPolicy contention, LockMode mode, int permits) {

	/** The engine request for one call with the given key value. */
	public LockRequest request(String keyValue) {
		return request(keyValue, this.waitTime);
	}

	/** The engine request for one lock of a key set, with what is left of the set's wait. */
	LockRequest request(String keyValue, Duration wait) {
		return new LockRequest(this.name, keyValue, this.lease, wait, this.autoRenew, this.maxLease, this.mode,
				this.permits);
	}

}
