package io.github.distlock.autoconfigure;

import java.util.List;

import io.github.distlock.fixtures.redis.RedisExtension;
import io.github.distlock.fixtures.redis.RespClient;

/** Reads lock keys straight from Redis, around the code under test. */
final class RedisKeys {

	private RedisKeys() {
	}

	/** Every key of a lock: exclusive, read/write or permits, with their queues. */
	static List<String> locks(RedisExtension redis) {
		try (RespClient client = redis.client()) {
			return client.keys("distlock:{*").stream().sorted().toList();
		}
	}

	/** Script calls Redis has counted so far. */
	static long scriptCalls(RedisExtension redis) {
		try (RespClient client = redis.client()) {
			return client.commandCalls("evalsha|eval");
		}
	}

	/**
	 * Removes the lock keys a test left, so that one test's leak fails that test instead of every later one, and
	 * answers which they were.
	 */
	static List<String> removeLeftOver(RedisExtension redis) {
		List<String> left = locks(redis);
		try (RespClient client = redis.client()) {
			left.forEach((key) -> client.call("DEL", key));
		}
		return left;
	}

	static boolean exists(RedisExtension redis, String key) {
		try (RespClient client = redis.client()) {
			return client.get(key) != null;
		}
	}

}
