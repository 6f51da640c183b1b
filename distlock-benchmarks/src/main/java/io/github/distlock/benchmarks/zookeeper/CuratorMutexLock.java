package io.github.distlock.benchmarks.zookeeper;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.utils.ZKPaths;

import io.github.distlock.benchmarks.lockserver.SystemLock;

/**
 * Apache Curator's {@link InterProcessMutex}, the recipe most ZooKeeper users reach for: one mutex per key, shared by
 * the instance's threads as its documentation intends (it tracks each thread's own node). A mutex must be released
 * by the thread that acquired it, which the benchmark always does.
 */
final class CuratorMutexLock implements SystemLock {

	private static final String ROOT = "/curator-locks";

	private final CuratorFramework client;

	private final Map<String, InterProcessMutex> mutexes = new ConcurrentHashMap<>();

	CuratorMutexLock(CuratorFramework client) {
		this.client = client;
	}

	@Override
	public Held lock(String key, Duration wait) throws Exception {
		InterProcessMutex mutex = this.mutexes.computeIfAbsent(key,
				(k) -> new InterProcessMutex(this.client, ZKPaths.makePath(ROOT, k)));
		if (!mutex.acquire(wait.toNanos(), TimeUnit.NANOSECONDS)) {
			return null;
		}
		return mutex::release;
	}

	@Override
	public void close() {
	}

}
