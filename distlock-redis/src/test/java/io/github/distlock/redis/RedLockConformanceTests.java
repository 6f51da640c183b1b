package io.github.distlock.redis;

import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.distlock.LockLostListener;
import io.github.distlock.engine.LockEngine;
import io.github.distlock.fixtures.redis.RedLockMastersExtension;
import io.github.distlock.conformance.AbstractLockEngineConformanceTests;

/**
 * The engine conformance suite on a RedLock of five real redis-server processes.
 */
class RedLockConformanceTests extends AbstractLockEngineConformanceTests {

	@RegisterExtension
	static final RedLockMastersExtension masters = new RedLockMastersExtension(5);

	private final RedLockTestEngines engines = new RedLockTestEngines();

	@Override
	protected LockEngine newEngine(LockLostListener listener) {
		return this.engines.create(masters, listener);
	}

	@Override
	protected void crash(LockEngine engine) {
		this.engines.crash(engine);
	}

	/**
	 * Held when a majority of the masters hold it, free when none does; anything between is neither, and fails the
	 * test (a lock left on a minority blocks nobody, but is a part that was not released).
	 */
	@Override
	protected boolean lockExists(String name, String key) {
		int holders = RedLockTestEngines.holders(masters, name, key);
		if (holders >= 3) {
			return true;
		}
		if (holders == 0) {
			return false;
		}
		throw new AssertionError("Lock '" + name + "' key '" + key + "' is on " + holders + " of 5 masters");
	}

	@Override
	protected void deleteLock(String name, String key) {
		RedLockTestEngines.onEachMaster(masters, masters.size(), "DEL",
				new RedisLockKeys("distlock").lockKey(name, key));
	}

	/** A RedLock waiter does not queue in Redis: it retries. Waiting is known from its engine. */
	@Override
	protected void awaitWaiterQueued(String key) throws Exception {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
		while (System.nanoTime() < deadline) {
			if (this.engines.anyWaiting()) {
				return;
			}
			Thread.sleep(5);
		}
		throw new AssertionError("No waiter on " + key);
	}

}
