package io.github.distlock.benchmarks.systems;

import java.util.concurrent.TimeUnit;

import org.redisson.Redisson;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;

/**
 * Redisson's {@link RLock}, the baseline every ratio is taken against. Locks are taken without a lease time, so
 * Redisson's watchdog renews them, as distlock's does.
 */
public final class RedissonLockSystem extends LockSystem {

	public static final String NAME = "redisson-rlock";

	/** Same fixed key length as every other system's; see {@link AnnotatedLockSystem}. */
	private static final String KEY_PREFIX = "rdsn:bench:";

	private final String url;

	private final LockSettings settings;

	public RedissonLockSystem(String url, LockSettings settings) {
		super(NAME);
		this.url = url;
		this.settings = settings;
	}

	@Override
	protected LockClient newClient(int index) {
		return new RedissonLockClient(
				Redisson.create(RedissonConfigs.singleServerWithWatchdog(this.url, this.settings.lease())),
				this.settings);
	}

	/** Lock keys, and the short-lived {@code redisson_unlock_latch:{...}} keys its unlock leaves. */
	@Override
	public String keyPattern() {
		return "*" + KEY_PREFIX + "*";
	}

	private static final class RedissonLockClient extends HandleLockClient<RLock> {

		private final RedissonClient redisson;

		private final LockSettings settings;

		RedissonLockClient(RedissonClient redisson, LockSettings settings) {
			this.redisson = redisson;
			this.settings = settings;
		}

		@Override
		protected RLock acquire(String key) throws InterruptedException {
			RLock lock = this.redisson.getLock(KEY_PREFIX + key);
			// The bounded form of lock(): the same single script when the lock is free, and no thread waits forever.
			return lock.tryLock(this.settings.waitTime().toMillis(), TimeUnit.MILLISECONDS) ? lock : null;
		}

		@Override
		protected RLock tryAcquire(String key) {
			RLock lock = this.redisson.getLock(KEY_PREFIX + key);
			return lock.tryLock() ? lock : null;
		}

		@Override
		protected boolean release(RLock lock) {
			try {
				lock.unlock();
				return true;
			}
			catch (IllegalMonitorStateException ex) {
				return false;
			}
		}

		@Override
		public void close() {
			this.redisson.shutdown();
		}

	}

}
