package io.github.distlock;

import org.jspecify.annotations.Nullable;

/**
 * Work that a {@link DistributedLockTemplate} runs under a lock.
 *
 * @param <T> the work's result
 */
@FunctionalInterface
public interface LockCallback<T extends @Nullable Object> {

	/**
	 * @param lock the lock the work runs under: its fencing token for downstream writes, its remaining lease
	 * @return the result the template hands back; may be null
	 */
	T doInLock(LockContext lock);

}
