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

	static boolean exists(RedisExtension redis, String key) {
		try (RespClient client = redis.client()) {
			return client.get(key) != null;
		}
	}

}
