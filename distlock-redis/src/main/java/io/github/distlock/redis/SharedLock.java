package io.github.distlock.redis;

import java.util.List;

import io.github.distlock.LockMode;
import io.github.distlock.engine.LockRequest;

/**
 * Where a shared lock lives in Redis and how its scripts ask for it: the four keys of {@code shared_lib.lua}, all in
 * the hash slot of the exclusive lock of the same name and key, the mode letter and the number of permits.
 * <p>
 * The read/write lock of a lock key {@code K} is {@code K:rw} (the writer), {@code K:rw:readers},
 * {@code K:rw:waiters}; its permits are {@code K:permits} (never set: permits have no writer),
 * {@code K:permits:holders} and {@code K:permits:waiters}. Neither is the exclusive lock {@code K}. The fourth key is
 * the token floor the lock shares with others ({@link TokenFloors}).
 *
 * @param writerKey the writer's string, which also names the lock to local waiters and in hand-over announcements
 * @param holdersKey the sorted set of readers or permit holders, each scored with its expiry
 * @param queueKey the waiter queue
 * @param tokenKey the token floor (the last token issued)
 * @param mode {@code r}, {@code w} or {@code p}
 * @param permits the number of permits (mode {@code p}), else 0
 */
record SharedLock(String writerKey, String holdersKey, String queueKey, String tokenKey, String mode, int permits) {

	static SharedLock of(String lockKey, LockRequest request, String floorKey) {
		if (request.permits() > 0) {
			String base = lockKey + ":permits";
			return new SharedLock(base, base + ":holders", RedisLockKeys.queueKey(base), floorKey, "p",
					request.permits());
		}
		String base = lockKey + ":rw";
		return new SharedLock(base, base + ":readers", RedisLockKeys.queueKey(base), floorKey,
				(request.mode() == LockMode.WRITE) ? "w" : "r", 0);
	}

	/** The keys every shared script takes, in the order {@code shared_lib.lua} names them. */
	List<Object> keys() {
		return List.of(this.writerKey, this.holdersKey, this.queueKey, this.tokenKey);
	}

	/** Whether the holder is a writer, whose grant is the writer's string rather than a member of the holders. */
	boolean isWriter() {
		return "w".equals(this.mode);
	}

	/** This caller's entry in the waiter queue. */
	String queueMember(String holderPrefix, long leaseMillis, long waitMillis) {
		return holderPrefix + leaseMillis + "|" + waitMillis + "|" + this.mode + this.permits;
	}

}
