package io.github.distlock.benchmarks.zookeeper;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;

import org.apache.curator.framework.CuratorFramework;
import org.springframework.integration.zookeeper.lock.ZookeeperLockRegistry;

import io.github.distlock.benchmarks.lockserver.SystemLock;

/**
 * Spring Integration's {@link ZookeeperLockRegistry}, with its defaults: an {@code InterProcessMutex} per key, and
 * before every timed acquisition a check that the server answers (an existence check of "/", run on the registry's
 * own executor).
 */
final class RegistryZooKeeperLock implements SystemLock {

	private final ZookeeperLockRegistry registry;

	RegistryZooKeeperLock(CuratorFramework client) {
		this.registry = new ZookeeperLockRegistry(client);
	}

	@Override
	public Held lock(String key, Duration wait) throws InterruptedException {
		Lock lock = this.registry.obtain(key);
		if (!lock.tryLock(wait.toMillis(), TimeUnit.MILLISECONDS)) {
			return null;
		}
		return lock::unlock;
	}

	@Override
	public void close() {
		this.registry.destroy();
	}

}
