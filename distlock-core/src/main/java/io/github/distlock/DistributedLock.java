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
 *
 * <h2>Composed annotations</h2>
 * The annotation may be used as a meta-annotation, with {@link org.springframework.core.annotation.AliasFor} to
 * rename or expose its attributes:
 *
 * <pre>{@code
 * @Retention(RetentionPolicy.RUNTIME)
 * @DistributedLock(name = "order", lease = "10s")
 * public @interface OrderLock {
 *
 *     @AliasFor(annotation = DistributedLock.class, attribute = "key")
 *     String value();
 *
 * }
 *
 * @OrderLock("#order.id")
 * public void pay(Order order) { ... }
 * }</pre>
 *
 * One method carries one lock: a method with two of them (directly and through a composed annotation, or through
 * two composed annotations) fails start-up. An annotation on a method overriding one that is annotated replaces
 * it.
 *
 * <h2>Defaults for a class</h2>
 * This annotation is never placed on a type (a composed annotation that carries it on a type fails start-up): it
 * would be unclear which methods it locks. {@link DistributedLockConfig} on a class supplies defaults to the
 * locked methods of that class instead, as Spring's {@code @CacheConfig} does for caching. An attribute set on the
 * method wins, then the class's, then the {@code distlock.*} property.
 */
@Target({ ElementType.METHOD, ElementType.ANNOTATION_TYPE })
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface DistributedLock {

	/**
	 * SpEL expression for the lock key, evaluated against the call: arguments by name ({@code #order.id}) or
	 * position ({@code #p0}, {@code #a0}), {@code #root.method}, {@code #root.target}, {@code #root.args} and
	 * bean references ({@code @clock.zone()}). The value is turned into a string; a null or blank value fails
	 * the call with {@link InvalidLockKeyException} and nothing is locked. A value that is a
	 * {@link java.util.Collection} or an object array locks every element, all or none; other values, such as a
	 * {@code Path}, are one key. Required, unless {@link #keys()} is given: empty here only so that a composed
	 * annotation can supply it through an alias; a lock declared without a key fails start-up.
	 */
	String key() default "";

	/**
	 * Several key expressions, instead of {@link #key()}: the call holds a lock on every value they yield (a value
	 * that is a collection or array counts element by element), all or none, taken in one sorted order so that
	 * calls naming the same keys in any order cannot deadlock. {@code keys = {"#from", "#to"}} is the same as
	 * {@code key = "{#from, #to}"}. Declaring both {@code key} and {@code keys} fails start-up.
	 */
	String[] keys() default {};

	/**
	 * Namespace of the lock. Defaults to the {@link DistributedLockConfig#name()} of the class, else to
	 * {@code SimpleClassName.methodName} of the bean's class.
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
	 * ({@link OnLost#ROLLBACK}). The {@link #fallback()} is not used for a lost lock.
	 */
	OnLost onLost() default OnLost.DEFAULT;

	/**
	 * Whether a call made while this thread already holds the same lock (same name and key, through this
	 * application's annotations or {@link DistributedLockTemplate}) enters it. With {@code false} such a call fails
	 * at once with {@link LockReentryException}, without waiting and without running the method; the outer call keeps
	 * the lock. For methods that must never run inside their own lock, as when recursion would be a bug.
	 */
	boolean reentrant() default true;

	/**
	 * How the lock is shared: {@link LockMode#EXCLUSIVE} (the default, one holder at a time), or a side of the
	 * read/write lock of this name and key: {@link LockMode#READ} (many readers at a time) or {@link LockMode#WRITE}
	 * (one writer, no readers). Waiters are served first come, first served, so once a writer waits, new readers
	 * queue behind it. A writer may call a {@code READ} method of the same name and key (it enters its write lock); a
	 * reader calling a {@code WRITE} method is refused with {@link LockUpgradeException}. The read/write lock of a
	 * name and key is not the {@code EXCLUSIVE} lock of that name and key: use {@code WRITE}, not the default,
	 * beside {@code READ}. Not every engine has read/write locks (the Redis engine has); on one without them the
	 * application fails start-up, naming the method.
	 */
	LockMode mode() default LockMode.EXCLUSIVE;

	/**
	 * A distributed concurrency limit instead of a lock: at most this many calls at a time, across all instances,
	 * hold a permit of this name and key, each permit with its own lease, renewal, fencing token and loss detection.
	 * A crashed holder's permit comes back within one lease. When none is free, the call waits up to
	 * {@link #waitTime()} for one (as {@code @ConcurrencyLimit}'s {@code BLOCK} policy), or with {@code "0s"} is
	 * rejected at once ({@code REJECT}) with {@link LockAcquisitionException}. A positive whole number, or a
	 * {@code ${...}} placeholder resolving to one; empty (the default) for a plain lock. Every caller of a name and
	 * key should declare the same number: a caller admits itself while fewer than its own number hold permits. Only
	 * with {@link LockMode#EXCLUSIVE} mode; a nested call for the same permits enters the caller's permit. Not every
	 * engine has permits (the Redis engine has); on one without them the application fails start-up.
	 */
	String permits() default "";

	/**
	 * Name of a method of the same bean to call instead when the lock stays held by another holder for the whole
	 * {@link #waitTime()}. It takes the same parameters, optionally followed by one of type
	 * {@link LockAcquisitionException} (or a supertype), which then receives the failure; it returns what this
	 * method returns (a {@code CompletionStage} for a method returning one), and its result is returned to the
	 * caller. It runs on the bean itself, not through its proxy, so it may be private and advice on it does not
	 * apply; it runs without the lock. An unreachable Redis or an interrupted wait still throws
	 * {@link LockAcquisitionException}, so a fallback never hides an outage; a lost lock is handled by
	 * {@link #onLost()}. Checked at start-up. Without a fallback a {@link LockFailureHandler} bean, if any, decides.
	 */
	String fallback() default "";

}
