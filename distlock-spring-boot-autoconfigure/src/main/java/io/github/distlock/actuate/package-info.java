/**
 * Actuator support for distlock: the health indicator, the meters and the {@code distlocks} endpoint.
 */
@NullMarked
package io.github.distlock.actuate;

import org.jspecify.annotations.NullMarked;
