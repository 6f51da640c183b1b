/**
 * The conformance kit every lock engine passes: {@link io.github.distlock.conformance.AbstractLockEngineConformanceTests}
 * and {@link io.github.distlock.conformance.AbstractSharedLockConformanceTests}, extended by an engine's own test
 * class with a real store behind it.
 */
@NullMarked
package io.github.distlock.conformance;

import org.jspecify.annotations.NullMarked;
