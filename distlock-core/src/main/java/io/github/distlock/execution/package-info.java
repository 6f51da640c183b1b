/**
 * The execution core: what holding a lock around a piece of work means, wherever the work comes from (the
 * annotation's interceptor, the template, the ShedLock provider). It takes the locks, binds them to the thread, the
 * Reactor context or the returned stage, keeps the held ones renewed and checked, reports a loss where the work can
 * see it, and releases them when the work ends, or when its transaction does. It also backs the API's static lookups
 * ({@link io.github.distlock.LockContext}, {@link io.github.distlock.ReactiveLockContext}). It knows nothing of AOP:
 * the {@code interceptor} package builds on it, never the other way round.
 */
@NullMarked
package io.github.distlock.execution;

import org.jspecify.annotations.NullMarked;
