/**
 * The execution core behind {@code @DistributedLock} and the template: parsing a locked method once, evaluating its
 * key per call, and holding the lock for as long as each kind of return value needs.
 */
@NullMarked
package io.github.distlock.interceptor;

import org.jspecify.annotations.NullMarked;
