package io.github.distlock.benchmarks.systems;

import java.time.Duration;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicLong;

import org.redisson.Redisson;
import org.redisson.api.RedissonClient;

import io.github.distlock.LockAcquisitionException;
import io.github.distlock.engine.LockHandle;
import io.github.distlock.engine.LockRequest;
import io.github.distlock.redis.RedisLockEngine;

/**
 * distlock's {@link RedisLockEngine} called directly: the cost of the engine without the proxy and key evaluation.
 */
public final class EngineLockSystem extends LockSystem {

	/** Same fixed key length as every other system's; see {@link AnnotatedLockSystem}. */
	static final String KEY_PREFIX = "dl-e";

	private final String url;

	private final LockSettings settings;

	public EngineLockSystem(String url, LockSettings settings) {
		super("distlock-engine");
		this.url = url;
		this.settings = settings;
	}

	@Override
	public boolean isDistlock() {
		return true;
	}

	@Override
	protected LockClient newClient(int index) {
		return new EngineClient(Redisson.create(RedissonConfigs.distlockClient(this.url)), this.settings);
	}

	/**
	 * Lock keys and the engine's waiter queues ("dl-e:{...}:waiters"); not the token floor ("dl-e:token"), one key
	 * for all locks that lives a few seconds after the last grant.
	 */
	@Override
	public String keyPattern() {
		return KEY_PREFIX + ":{*";
	}

	private static final class EngineClient extends HandleLockClient<LockHandle> {

		private final RedissonClient redisson;

		private final RedisLockEngine engine;

		private final LockSettings settings;

		private final AtomicLong lost = new AtomicLong();

		EngineClient(RedissonClient redisson, LockSettings settings) {
			this.redisson = redisson;
			this.settings = settings;
			this.engine = new RedisLockEngine(redisson, KEY_PREFIX, null, (lostLock) -> this.lost.incrementAndGet());
		}

		@Override
		protected LockHandle acquire(String key) throws InterruptedException {
			return acquire(key, this.settings.waitTime());
		}

		@Override
		protected LockHandle tryAcquire(String key) {
			try {
				return acquire(key, Duration.ZERO);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException(ex);
			}
		}

		private LockHandle acquire(String key, Duration waitTime) throws InterruptedException {
			try {
				return this.engine.acquire(new LockRequest("bench", key, this.settings.lease(), waitTime, true, null));
			}
			catch (LockAcquisitionException ex) {
				if (ex.isStoreUnavailable()) {
					throw ex;
				}
				return null;
			}
		}

		@Override
		protected boolean release(LockHandle handle) {
			return handle.release();
		}

		/** The watchdog's count: one per tick, its renewal batches all sent at once. */
		@Override
		public OptionalLong renewalRoundTrips() {
			return OptionalLong.of(this.engine.statistics().renewalRoundTrips());
		}

		@Override
		public void close() {
			this.engine.close();
			this.redisson.shutdown();
		}

	}

}
