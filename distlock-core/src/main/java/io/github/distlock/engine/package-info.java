/**
 * The lock engine SPI: what a caller asks of a store ({@link io.github.distlock.engine.LockRequest}) and the handle
 * it gets back, with the capabilities some engines add.
 */
@NullMarked
package io.github.distlock.engine;

import org.jspecify.annotations.NullMarked;
