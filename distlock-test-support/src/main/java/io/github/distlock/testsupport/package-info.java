/**
 * The conformance kit every lock engine passes: {@link io.github.distlock.testsupport.AbstractLockEngineConformanceTests}
 * and {@link io.github.distlock.testsupport.AbstractSharedLockConformanceTests}, extended by an engine's own test
 * class with a real store behind it, and {@link io.github.distlock.testsupport.HostBinary}, which finds or fetches
 * the server binaries those tests start.
 */
@NullMarked
package io.github.distlock.testsupport;

import org.jspecify.annotations.NullMarked;
