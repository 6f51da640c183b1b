package io.github.distlock;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Runs the annotated method only while this caller holds a distributed lock.
 * <p>
 * The lock is identified by {@link #name()} and the value of {@link #key()}; two calls exclude each other exactly
 * when both are equal. The lock is acquired before the method (and before any {@code @Transactional} on it) and
 * released after it returns or throws; a lease kept alive by a watchdog bounds how long a crashed holder can block
 * others. A method returning {@link java.util.concurrent.CompletionStage} or
 * {@link java.util.concurrent.CompletableFuture} keeps the lock until the stage it returns completes, since that is
 * when its work ends; other results whose work outlives the call ({@code Future}, reactive publishers) fail start-up.
 * For code that cannot carry the annotation, {@link DistributedLockTemplate} does the same programmatically.
 * <p>
 * Every string attribute may use {@code ${...}} placeholders. Invalid expressions and durations fail application
 * start-up, naming the method.
 *
 * <pre>{@code
 * @DistributedLock(key = "#order.id", lease = "10s")
 * public void pay(Order order) { ... }
 * }</pre>
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface DistributedLock {

	/**
	 * SpEL expression for the lock key, evaluated against the call: arguments by name ({@code #order.id}) or
	 * position ({@code #p0}, {@code #a0}), {@code #root.method}, {@code #root.target}, {@code #root.args} and
	 * bean references ({@code @clock.zone()}). The value is turned into a string; a null or blank value fails
	 * the call with {@link InvalidLockKeyException} and nothing is locked.
	 */
	String key();

	/**
	 * Namespace of the lock. Defaults to {@code SimpleClassName.methodName} of the bean's class.
	 */
	String name() default "";

	/**
	 * Time to live of the lock in Redis, such as {@code "500ms"}, {@code "10s"}, {@code "2m"} or {@code "PT10S"}.
	 * A holder that dies frees the lock within one lease. Defaults to {@code distlock.lease}.
	 */
	String lease() default "";

	/**
	 * How long a caller waits for the lock before {@link LockAcquisitionException}; {@code "0s"} tries once.
	 * Defaults to {@code distlock.wait-time}.
	 */
	String waitTime() default "";

	/**
	 * Whether a watchdog extends the lease (every third of it) while the method runs. With {@code false} the
	 * lease is a hard limit on the time the method is protected.
	 */
	boolean autoRenew() default true;

	/**
	 * Ceiling on renewal: the lock expires no later than this long after it was acquired, however long the
	 * method runs. Defaults to {@code distlock.max-lease}; empty there means no ceiling.
	 */
	String maxLease() default "";

	/**
	 * What happens when the lock is lost while the method runs. Defaults to {@code distlock.on-lost}
	 * ({@link OnLost#ROLLBACK}).
	 */
	OnLost onLost() default OnLost.DEFAULT;

}
