/**
 * Test support for applications using distlock: {@code @AutoConfigureDistLock} and the assertions and helpers on the
 * locks a test context stores.
 */
@NullMarked
package io.github.distlock.testing;

import org.jspecify.annotations.NullMarked;
