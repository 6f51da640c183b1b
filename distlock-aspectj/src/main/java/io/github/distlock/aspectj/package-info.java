/**
 * Locking by AspectJ's weaving: {@link io.github.distlock.aspectj.DistributedLockAspect}, declared in this module's
 * {@code META-INF/aop.xml} for load-time weaving. Start the JVM with {@code -javaagent:aspectjweaver.jar} and set
 * {@code distlock.aop.mode=aspectj}; the auto-configuration then configures the aspect instead of creating proxies.
 */
@NullMarked
package io.github.distlock.aspectj;

import org.jspecify.annotations.NullMarked;
