package io.github.distlock.benchmarks.systems;

import java.util.List;

import io.github.distlock.DistributedLock;

/**
 * The application bean of the annotated system: each method runs its body under {@code @DistributedLock}, so a call
 * goes through the proxy, the key expression, the interceptor and the engine, as in an application.
 */
public class LockedWork {

	@DistributedLock(name = "bench", key = "#key", lease = "${bench.lease}", waitTime = "${bench.wait-time}")
	public void locked(String key, Runnable body) {
		body.run();
	}

	/** Every key of the list, all or none (the key-set benchmark). */
	@DistributedLock(name = "bench", key = "#keys", lease = "${bench.lease}", waitTime = "${bench.wait-time}")
	public void lockedAll(List<String> keys, Runnable body) {
		body.run();
	}

	@DistributedLock(name = "bench", key = "#key", lease = "${bench.lease}", waitTime = "0s")
	public void tryLocked(String key, Runnable body) {
		body.run();
	}

}
