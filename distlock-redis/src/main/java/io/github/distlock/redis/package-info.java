/**
 * The Redis lock engine and its RedLock variant, through Redisson: Lua scripts for acquisition, renewal and release,
 * and the start-up checks that say what is wrong with a store.
 */
@NullMarked
package io.github.distlock.redis;

import org.jspecify.annotations.NullMarked;
