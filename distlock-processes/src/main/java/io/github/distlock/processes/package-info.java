/**
 * Real processes for tests, demos and first runs: a {@code redis-server} on loopback, started from an executable on
 * disk, and signals sent to a process by its id.
 */
@NullMarked
package io.github.distlock.processes;

import org.jspecify.annotations.NullMarked;
