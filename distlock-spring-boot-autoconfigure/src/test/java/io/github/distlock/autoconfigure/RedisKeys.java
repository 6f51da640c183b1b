package io.github.distlock.autoconfigure;

import java.util.List;

import io.github.distlock.test.RedisExtension;
import io.github.distlock.test.RespClient;

/** Reads lock keys straight from Redis, around the code under test. */
final class RedisKeys {

	private RedisKeys() {
	}

	static List<String> locks(RedisExtension redis) {
		try (RespClient client = redis.client()) {
			return client.keys("distlock:{*}").stream().sorted().toList();
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
