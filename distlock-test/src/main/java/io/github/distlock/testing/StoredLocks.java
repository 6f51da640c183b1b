package io.github.distlock.testing;

import java.time.Duration;
import java.util.List;

import org.jspecify.annotations.Nullable;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

import io.github.distlock.redis.RedisLockKeys;

/**
 * Exclusive locks as the Redis engine stores them ({@code <prefix>:{<name>:<key>}}, holding
 * {@code <holder id>|<token>}), read and removed directly, as another instance or an expiry would see and do it.
 */
final class StoredLocks {

	private static final String INSPECT = LuaScript.load("inspect.lua");

	private static final String EXPIRE = LuaScript.load("expire.lua");

	private final RScript script;

	private final RedisLockKeys keys;

	StoredLocks(RedissonClient client, String keyPrefix) {
		this.script = client.getScript(StringCodec.INSTANCE);
		this.keys = new RedisLockKeys(keyPrefix);
	}

	/** The Redis key of the lock, for messages. */
	String redisKey(String name, String key) {
		return this.keys.lockKey(name, key);
	}

	/** The lock as stored now, or null when there is none. */
	@Nullable StoredLock find(String name, String key) {
		return run(INSPECT, RScript.Mode.READ_ONLY, name, key);
	}

	/** Removes the lock as an expiry would; returns what it was, or null when there was none. */
	@Nullable StoredLock expire(String name, String key) {
		return run(EXPIRE, RScript.Mode.READ_WRITE, name, key);
	}

	private @Nullable StoredLock run(String text, RScript.Mode mode, String name, String key) {
		List<String> reply = this.script.eval(mode, text, RScript.ReturnType.LIST, List.of(redisKey(name, key)));
		if (reply.isEmpty()) {
			return null;
		}
		// "<holder id>|<token>", then "|w" while waiters queue.
		String[] parts = reply.get(0).split("\\|");
		return new StoredLock(name, key, parts[0], Long.parseLong(parts[1]),
				Duration.ofMillis(Long.parseLong(reply.get(1))));
	}

}
