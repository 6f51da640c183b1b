package io.github.distlock.benchmarks.shared;

import java.util.concurrent.TimeUnit;

import org.redisson.Redisson;
import org.redisson.api.RLock;
import org.redisson.api.RPermitExpirableSemaphore;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import io.github.distlock.benchmarks.redis.RedisUnderTest;

/**
 * Redisson as an application gets it by default. Read/write: {@code RReadWriteLock.readLock()} or
 * {@code writeLock()}, {@code tryLock(10 s)} without a lease time, so Redisson's watchdog renews it every 10 s with a
 * 30 s timeout (its default, set here explicitly), as distlock's watchdog renews its 30 s lease; then
 * {@code unlock()}. Permits: {@code RPermitExpirableSemaphore}, {@code trySetPermits(N)} once per key, then
 * {@code tryAcquire(10 s wait, 30 s lease)} and {@code release(permitId)}; Redisson's semaphore has no watchdog, so
 * its lease is fixed, which costs nothing here: no acquisition is held anywhere near a renewal interval.
 */
final class RedissonSharedClient implements SharedLockClient {

	static final String NAME = "Redisson";

	private static final String KEY_PREFIX = "rdsn:bench";

	private final RedissonClient client;

	RedissonSharedClient(RedisUnderTest redis) {
		Config config = new Config();
		config.useSingleServer().setAddress(redis.url());
		config.setLockWatchdogTimeout(LEASE.toMillis());
		this.client = Redisson.create(config);
	}

	@Override
	public Held read(String key) throws InterruptedException {
		return lock(this.client.getReadWriteLock(KEY_PREFIX + ":" + key).readLock());
	}

	@Override
	public Held write(String key) throws InterruptedException {
		return lock(this.client.getReadWriteLock(KEY_PREFIX + ":" + key).writeLock());
	}

	private static Held lock(RLock lock) throws InterruptedException {
		if (!lock.tryLock(WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
			return null;
		}
		return () -> {
			try {
				lock.unlock();
				return true;
			}
			catch (IllegalMonitorStateException ex) {
				return false;
			}
		};
	}

	@Override
	public void preparePermits(String key, int permits) {
		// False when another client of the run set them already.
		semaphore(key).trySetPermits(permits);
	}

	@Override
	public Held permit(String key, int permits) throws InterruptedException {
		RPermitExpirableSemaphore semaphore = semaphore(key);
		String permitId = semaphore.tryAcquire(WAIT.toMillis(), LEASE.toMillis(), TimeUnit.MILLISECONDS);
		if (permitId == null) {
			return null;
		}
		return () -> {
			try {
				semaphore.release(permitId);
				return true;
			}
			catch (IllegalArgumentException ex) {
				// Redisson's word for a permit that is no longer there (its lease ran out).
				return false;
			}
		};
	}

	private RPermitExpirableSemaphore semaphore(String key) {
		return this.client.getPermitExpirableSemaphore(KEY_PREFIX + ":" + key);
	}

	/** Redisson has no lost-lock notification: a lost lock shows only as a failed release. */
	@Override
	public long lostLocks() {
		return 0;
	}

	@Override
	public void close() {
		this.client.shutdown(0, 2, TimeUnit.SECONDS);
	}

}
