package io.github.distlock.benchmarks.systems;

import java.util.ConcurrentModificationException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.integration.redis.util.RedisLockRegistry;
import org.springframework.integration.redis.util.RedisLockRegistry.RedisLockType;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

/**
 * Spring Integration's {@link RedisLockRegistry} on a Lettuce connection factory, in one of its two lock types.
 * <p>
 * Renewal is opt-in for the registry (a {@code TaskScheduler}), and costs every acquisition one more round trip:
 * the scheduler's fixed-delay renewal runs once straight after the lock is taken. So the timed scenarios use the
 * registry as configured by default, without renewal, which is the cheaper way; only the holding client (which
 * holds the try-lock scenarios' key and the renewal scenario's locks for longer than a lease) has a scheduler.
 */
public final class RegistryLockSystem extends LockSystem {

	/** The number of the one client with a renewal scheduler; the others are as the registry comes. */
	private static final int RENEWING_CLIENT = -1;

	private final String host;

	private final int port;

	private final RedisLockType type;

	private final LockSettings settings;

	public RegistryLockSystem(String host, int port, RedisLockType type, LockSettings settings) {
		super("si-registry-" + ((type == RedisLockType.SPIN_LOCK) ? "spin" : "pubsub"));
		this.host = host;
		this.port = port;
		this.type = type;
		this.settings = settings;
	}

	/** Same fixed key length as every other system's; see {@link AnnotatedLockSystem}. */
	private String registryKey() {
		return ((this.type == RedisLockType.SPIN_LOCK) ? "si-s" : "si-p") + ":bench";
	}

	@Override
	protected int holdingIndex() {
		return RENEWING_CLIENT;
	}

	@Override
	protected LockClient newClient(int index) {
		LettuceConnectionFactory connections = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration(this.host, this.port));
		connections.afterPropertiesSet();
		connections.start();
		RedisLockRegistry registry = new RedisLockRegistry(connections, registryKey(), this.settings.lease());
		registry.setRedisLockType(this.type);
		ThreadPoolTaskScheduler renewals = null;
		if (index == RENEWING_CLIENT) {
			renewals = new ThreadPoolTaskScheduler();
			renewals.setThreadNamePrefix(name() + "-renewal-");
			renewals.setDaemon(true);
			renewals.initialize();
			registry.setRenewalTaskScheduler(renewals);
		}
		return new RegistryClient(connections, renewals, registry, this.settings);
	}

	@Override
	public String keyPattern() {
		return registryKey() + ":*";
	}

	private static final class RegistryClient extends HandleLockClient<Lock> {

		private final LettuceConnectionFactory connections;

		private final ThreadPoolTaskScheduler renewals;

		private final RedisLockRegistry registry;

		private final LockSettings settings;

		RegistryClient(LettuceConnectionFactory connections, ThreadPoolTaskScheduler renewals,
				RedisLockRegistry registry, LockSettings settings) {
			this.connections = connections;
			this.renewals = renewals;
			this.registry = registry;
			this.settings = settings;
		}

		@Override
		protected Lock acquire(String key) throws InterruptedException {
			Lock lock = this.registry.obtain(key);
			return lock.tryLock(this.settings.waitTime().toMillis(), TimeUnit.MILLISECONDS) ? lock : null;
		}

		@Override
		protected Lock tryAcquire(String key) {
			Lock lock = this.registry.obtain(key);
			return lock.tryLock() ? lock : null;
		}

		@Override
		protected boolean release(Lock lock) {
			try {
				lock.unlock();
				return true;
			}
			catch (IllegalStateException | ConcurrentModificationException ex) {
				// The registry's way of saying the key had expired or was taken by another holder.
				return false;
			}
		}

		@Override
		public void close() {
			this.registry.destroy();
			if (this.renewals != null) {
				this.renewals.shutdown();
			}
			this.connections.destroy();
		}

	}

}
