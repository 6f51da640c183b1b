/**
 * The annotation's side: the advisor and interceptor of {@code @DistributedLock}, parsing and validating a locked
 * method once, evaluating its key per call, fallbacks, and one strategy per kind of return value. Each strategy hands
 * the work to the execution core ({@code io.github.distlock.execution}), which holds the lock around it.
 */
@NullMarked
package io.github.distlock.interceptor;

import org.jspecify.annotations.NullMarked;
