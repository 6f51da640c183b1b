package io.github.distlock.process;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import io.github.distlock.engine.LockHandle;
import io.github.distlock.engine.LockRequest;
import io.github.distlock.redis.RedisLockEngine;
import io.github.distlock.fixtures.redis.RespClient;

/**
 * An application instance in its own JVM that takes one lock many times from several threads and, inside each
 * critical section, appends its fencing token to a Redis list with a raw client. Since the lock orders the
 * appends, the list shows whether tokens grow in acquisition order.
 * <p>
 * Arguments: Redis port, acquisitions per thread, threads.
 */
public final class TokenLoggerApplication {

	private TokenLoggerApplication() {
	}

	public static void main(String[] args) throws Exception {
		int port = Integer.parseInt(args[0]);
		int perThread = Integer.parseInt(args[1]);
		int threads = Integer.parseInt(args[2]);
		Config config = new Config();
		config.useSingleServer().setAddress("redis://127.0.0.1:" + port);
		RedissonClient client = Redisson.create(config);
		RedisLockEngine engine = new RedisLockEngine(client, "distlock", null, (lost) -> {
			System.out.println("LOST " + lost);
		});
		ExecutorService pool = Executors.newFixedThreadPool(threads);
		try {
			List<Future<?>> futures = new ArrayList<>();
			for (int t = 0; t < threads; t++) {
				futures.add(pool.submit(() -> {
					try (RespClient raw = new RespClient("127.0.0.1", port)) {
						for (int i = 0; i < perThread; i++) {
							LockHandle handle = engine.acquire(new LockRequest("tokens", "shared",
									Duration.ofSeconds(10), Duration.ofSeconds(60), true, null));
							raw.call("RPUSH", "token-log", String.valueOf(handle.token()));
							handle.release();
						}
					}
					return null;
				}));
			}
			for (Future<?> future : futures) {
				future.get();
			}
			System.out.println("DONE");
		}
		finally {
			pool.shutdown();
			engine.close();
			client.shutdown();
		}
	}

}
