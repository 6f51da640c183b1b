/**
 * Spring Boot auto-configuration for distlock: the lock engine chosen by what is on the class path and the {@code
 * distlock.*} settings, the interceptor, and the failure analyzers.
 */
@NullMarked
package io.github.distlock.autoconfigure;

import org.jspecify.annotations.NullMarked;
