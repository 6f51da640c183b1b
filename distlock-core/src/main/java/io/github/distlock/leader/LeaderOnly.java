package io.github.distlock.leader;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.core.annotation.AliasFor;

import io.github.distlock.OnLost;

/**
 * Runs the method only on the instance that leads the election, for example a {@code @Scheduled} job that every
 * instance triggers and one should do. The instance stands in the election while its context runs; where it does not
 * lead, the call is skipped and returns nothing ({@code null}, an empty {@code Optional}, a stage completed with
 * {@code null}, an empty {@code Mono} or {@code Flux}).
 * <p>
 * On the leader, the method runs inside the election's lock: {@link io.github.distlock.LockContext} gives the term's
 * epoch as the lock's fencing token, and a leadership lost while the method runs is handled as a lost
 * {@link io.github.distlock.DistributedLock} is ({@link #onLost()}): a {@link io.github.distlock.LockLostException}
 * after the method, or its thread interrupted. A term that is yielded or shut down keeps the lock until the method
 * returns (for a stage or a publisher, until it completes), so no other instance leads while it runs. Asynchronous
 * and reactive methods follow the rules of {@code @DistributedLock}.
 * <p>
 * Applied by Spring's proxies: the method must be public and overridable, and called from another bean.
 */
@Target({ ElementType.METHOD, ElementType.ANNOTATION_TYPE })
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface LeaderOnly {

	/** Alias for {@link #election()}. */
	@AliasFor("election")
	String value() default "";

	/** The election's name (placeholders such as {@code ${app.election}} are resolved). */
	@AliasFor("value")
	String election() default "";

	/** What a leadership lost while the method runs does to it; {@code distlock.on-lost} when left at default. */
	OnLost onLost() default OnLost.DEFAULT;

}
