/**
 * Building blocks for lock engines whose locks are leases in a store: the handle's life from held to released or
 * lost, and the watchdog that renews every held lock of an engine in batches.
 */
@NullMarked
package io.github.distlock.engine.support;

import org.jspecify.annotations.NullMarked;
