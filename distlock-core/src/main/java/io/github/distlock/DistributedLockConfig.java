package io.github.distlock;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Defaults for the {@link DistributedLock} methods declared in a class, as Spring's {@code @CacheConfig} is for
 * caching. It locks nothing by itself: only the annotated methods are locked, and each attribute applies where the
 * method's own annotation leaves it empty. An attribute set on the method wins, then the class's, then the
 * {@code distlock.*} property.
 * <p>
 * Found on the class that declares the locked method, its superclasses and interfaces (nearest first), and through
 * composed annotations. Attributes may use {@code ${...}} placeholders; invalid values fail start-up, naming the
 * method and this annotation.
 *
 * <pre>{@code
 * @Service
 * @DistributedLockConfig(name = "orders", lease = "10s", waitTime = "0s")
 * class OrderService {
 *
 *     @DistributedLock(key = "#order.id")              // lock "orders", lease 10s, no wait
 *     public void pay(Order order) { ... }
 *
 *     @DistributedLock(key = "#order.id", waitTime = "2s")
 *     public void refund(Order order) { ... }         // lock "orders", lease 10s, waits up to 2s
 *
 * }
 * }</pre>
 *
 * With a shared {@link #name()} the methods of the class lock one namespace: a call to {@code pay} and one to
 * {@code refund} for the same order exclude each other.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface DistributedLockConfig {

	/** Namespace of the class's locks, for methods that name none. */
	String name() default "";

	/** Lease of the class's locks, for methods that set none. */
	String lease() default "";

	/** Wait time of the class's locks, for methods that set none. */
	String waitTime() default "";

	/** Renewal ceiling of the class's locks, for methods that set none. */
	String maxLease() default "";

	/** Reaction to a lost lock, for methods that leave it at {@link OnLost#DEFAULT}. */
	OnLost onLost() default OnLost.DEFAULT;

}
