package io.github.distlock.testing;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.jspecify.annotations.Nullable;
import org.redisson.api.RedissonClient;

import io.github.distlock.LockAcquisitionException;
import io.github.distlock.engine.DisplayedKey;
import io.github.distlock.engine.HeldLockView;
import io.github.distlock.engine.LockHandle;
import io.github.distlock.engine.LockRequest;
import io.github.distlock.redis.RedisLockEngine;

/**
 * A second application instance on the test's Redis: a Redis lock engine of its own (its own holder ids, watchdog
 * and release channel), which takes locks as another instance would. Made on first use.
 */
final class AnotherInstance implements AutoCloseable {

	/** Renewed until released, so a taken lock never runs out under a slow test. */
	private static final Duration LEASE = Duration.ofSeconds(30);

	private final RedissonClient client;

	private final String keyPrefix;

	private final Set<TakenLock> taken = ConcurrentHashMap.newKeySet();

	/** Created on the first lock taken; null until then. */
	private @Nullable RedisLockEngine engine;

	AnotherInstance(RedissonClient client, String keyPrefix) {
		this.client = client;
		this.keyPrefix = keyPrefix;
	}

	/**
	 * Takes the lock, which must be free (the caller has just removed the former holder's).
	 * @throws IllegalStateException if someone else took it in the meantime
	 */
	TakenLock take(String name, String key) {
		RedisLockEngine engine = engine();
		LockHandle handle;
		try {
			handle = engine.acquire(new LockRequest(name, key, LEASE, Duration.ZERO, true, null));
		}
		catch (LockAcquisitionException ex) {
			throw new IllegalStateException("Lock '" + name + "' for key '" + DisplayedKey.of(key) + "' was taken by "
					+ "someone else (a waiting caller) before DistLocks.take could take it", ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while taking lock '" + name + "'", ex);
		}
		String holder = engine.heldLocks()
			.stream()
			.filter((view) -> view.token() == handle.token() && view.name().equals(name) && view.key().equals(key))
			.map(HeldLockView::holder)
			.findFirst()
			.orElse("?");
		TakenLock lock = new TakenLock(handle, holder, this.taken::remove);
		this.taken.add(lock);
		return lock;
	}

	/** Whether a lock stored with this holder id was taken here and not yet released. */
	boolean holds(String holder) {
		return this.taken.stream().anyMatch((lock) -> lock.holder().equals(holder));
	}

	/** Releases every lock taken here. */
	void releaseAll() {
		this.taken.forEach(TakenLock::release);
	}

	private synchronized RedisLockEngine engine() {
		if (this.engine == null) {
			// Losses of taken locks concern the test that meddled with them, not the application: nobody to tell.
			this.engine = new RedisLockEngine(this.client, this.keyPrefix, null, (lost) -> {
			});
		}
		return this.engine;
	}

	@Override
	public synchronized void close() {
		if (this.client.isShutdown()) {
			// Nothing left to release through it; the test's server is stopping too.
			return;
		}
		releaseAll();
		if (this.engine != null) {
			this.engine.close();
		}
	}

}
