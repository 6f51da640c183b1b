package io.github.distlock.redis;

import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * Where a lock lives in Redis: one name per (lock name, key) pair, and every Redis key of that lock in one Cluster
 * hash slot.
 * <p>
 * A lock's keys are {@code <prefix>:{<name>:<key>}} (the lock) and {@code <prefix>:{<name>:<key>}:waiters} (its
 * waiter queue), with {@code %}, {@code :}, <code>{</code> and <code>}</code> in the name and key written as
 * {@code %25}, {@code %3A}, {@code %7B} and {@code %7D}. Escaping makes the pair unambiguous (name {@code a} with key
 * {@code x:y} and name {@code a:x} with key {@code y} are two locks), and keeps braces out of the part between
 * braces, so that part is the hash tag whatever the user's name and key contain: Redis Cluster places every key of a
 * lock on the same slot. The prefix may hold no brace, or it would move the tag.
 */
public final class RedisLockKeys {

	private final String prefix;

	/**
	 * @param prefix the prefix of every key ({@code distlock.redis.key-prefix}); not empty, no <code>{</code> or
	 * <code>}</code>
	 */
	public RedisLockKeys(String prefix) {
		Objects.requireNonNull(prefix, "prefix");
		if (prefix.isEmpty() || prefix.indexOf('{') >= 0 || prefix.indexOf('}') >= 0) {
			throw new IllegalArgumentException("distlock.redis.key-prefix must be non-empty and contain no '{' or '}' "
					+ "(a brace would move the Redis Cluster hash tag of every lock): \"" + prefix + "\"");
		}
		this.prefix = prefix;
	}

	public String prefix() {
		return this.prefix;
	}

	/** The Redis key of the lock for this name and key. */
	public String lockKey(String name, String key) {
		StringBuilder redisKey = new StringBuilder(this.prefix.length() + name.length() + key.length() + 8);
		redisKey.append(this.prefix).append(":{");
		escape(name, redisKey);
		redisKey.append(':');
		escape(key, redisKey);
		return redisKey.append('}').toString();
	}

	/** The Redis key of the waiter queue of the lock stored under {@code lockKey}. */
	public static String queueKey(String lockKey) {
		return lockKey + ":waiters";
	}

	/** The key the health check declares, inside the prefix. */
	String healthKey() {
		return this.prefix + ":health";
	}

	/**
	 * The name and key of the lock stored under a Redis key of this prefix, or null when the Redis key is not a lock
	 * key (a waiter queue, another prefix, anything else).
	 */
	public String @Nullable [] parseLockKey(String redisKey) {
		String start = this.prefix + ":{";
		if (!redisKey.startsWith(start) || !redisKey.endsWith("}")) {
			return null;
		}
		String tag = redisKey.substring(start.length(), redisKey.length() - 1);
		int separator = tag.indexOf(':');
		if (separator < 0 || tag.indexOf('}') >= 0) {
			return null;
		}
		return new String[] { unescape(tag.substring(0, separator)), unescape(tag.substring(separator + 1)) };
	}

	private static void escape(String text, StringBuilder out) {
		for (int i = 0; i < text.length(); i++) {
			char c = text.charAt(i);
			switch (c) {
				case '%' -> out.append("%25");
				case ':' -> out.append("%3A");
				case '{' -> out.append("%7B");
				case '}' -> out.append("%7D");
				default -> out.append(c);
			}
		}
	}

	private static String unescape(String text) {
		if (text.indexOf('%') < 0) {
			return text;
		}
		StringBuilder out = new StringBuilder(text.length());
		for (int i = 0; i < text.length(); i++) {
			char c = text.charAt(i);
			if (c == '%' && i + 2 < text.length()) {
				out.append((char) Integer.parseInt(text.substring(i + 1, i + 3), 16));
				i += 2;
			}
			else {
				out.append(c);
			}
		}
		return out.toString();
	}

}
