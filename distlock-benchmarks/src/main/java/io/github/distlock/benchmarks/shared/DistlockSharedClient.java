package io.github.distlock.benchmarks.shared;

import java.util.concurrent.atomic.AtomicLong;

import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import io.github.distlock.LockAcquisitionException;
import io.github.distlock.LockMode;
import io.github.distlock.benchmarks.redis.RedisUnderTest;
import io.github.distlock.engine.LockHandle;
import io.github.distlock.engine.LockRequest;
import io.github.distlock.redis.RedisLockEngine;

/**
 * distlock's {@link RedisLockEngine} called directly: {@code engine.acquire(new LockRequest(name, key, 30 s, 10 s,
 * autoRenew = true, null, mode, permits))}, then {@code handle.release()}, on a Redisson client set up as distlock's
 * auto-configuration sets up its own (Redisson's defaults except 4 idle connections instead of 24).
 */
final class DistlockSharedClient implements SharedLockClient {

	static final String NAME = "distlock RedisLockEngine";

	/** Same length as Redisson's prefix, so neither pays for longer names. */
	private static final String KEY_PREFIX = "dl-s:bench";

	private final RedissonClient redisson;

	private final RedisLockEngine engine;

	private final AtomicLong lost = new AtomicLong();

	DistlockSharedClient(RedisUnderTest redis) {
		Config config = new Config();
		config.useSingleServer().setAddress(redis.url()).setConnectionMinimumIdleSize(4);
		this.redisson = Redisson.create(config);
		this.engine = new RedisLockEngine(this.redisson, KEY_PREFIX, null, (lostLock) -> this.lost.incrementAndGet());
	}

	@Override
	public Held read(String key) throws InterruptedException {
		return acquire(key, LockMode.READ, 0);
	}

	@Override
	public Held write(String key) throws InterruptedException {
		return acquire(key, LockMode.WRITE, 0);
	}

	/** Nothing to do: the number of permits comes with every request. */
	@Override
	public void preparePermits(String key, int permits) {
	}

	@Override
	public Held permit(String key, int permits) throws InterruptedException {
		return acquire(key, LockMode.EXCLUSIVE, permits);
	}

	private Held acquire(String key, LockMode mode, int permits) throws InterruptedException {
		LockHandle handle;
		try {
			handle = this.engine.acquire(new LockRequest("bench", key, LEASE, WAIT, true, null, mode, permits));
		}
		catch (LockAcquisitionException ex) {
			if (ex.isStoreUnavailable()) {
				throw ex;
			}
			return null;
		}
		return handle::release;
	}

	@Override
	public long lostLocks() {
		return this.lost.get();
	}

	@Override
	public void close() {
		this.engine.close();
		this.redisson.shutdown();
	}

}
