/**
 * A real {@code redis-server} process on loopback, for a test context or a sample's first run.
 */
@NullMarked
package io.github.distlock.testing.redis;

import org.jspecify.annotations.NullMarked;
