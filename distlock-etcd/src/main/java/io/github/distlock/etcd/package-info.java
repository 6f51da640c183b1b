/**
 * The lock engine on etcd's v3 API, through jetcd: one key per acquisition, held by a lease of the instance.
 */
@NullMarked
package io.github.distlock.etcd;

import org.jspecify.annotations.NullMarked;
