/**
 * The API applications use: the {@code @DistributedLock} annotation, the template for locking in code, the lock
 * context and the exceptions a locked call can throw.
 */
@NullMarked
package io.github.distlock;

import org.jspecify.annotations.NullMarked;
