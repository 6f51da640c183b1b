package io.github.distlock.redis;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;
import org.redisson.client.RedisAuthRequiredException;
import org.redisson.client.RedisException;
import org.redisson.client.RedisOutOfMemoryException;
import org.redisson.client.RedisReadonlyException;
import org.redisson.client.RedisWrongPasswordException;
import org.springframework.lang.Contract;

import io.github.distlock.LockStoreException;

/**
 * Tells a Redis failure that may pass by itself (unreachable, too slow, loading, busy, failing over) from a refusal
 * that will not (a missing permission, a key of the wrong type, a full memory, a read-only replica, a script
 * error), and turns a refusal into an exception that names the error and what to change.
 */
final class RedisFailures {

	/** An error reply: a code in capitals ({@code NOPERM}, {@code WRONGTYPE}, {@code ERR}), then its text. */
	private static final Pattern ERROR_REPLY = Pattern.compile("^-?([A-Z][A-Z_]+) (.*)", Pattern.DOTALL);

	/** Redisson appends the connection (addresses) and the command to an error reply; neither belongs in a message. */
	private static final String REDISSON_SUFFIX = ". channel: ";

	/** How Redis 7.0 words an ACL denial of a command, key or channel inside a script. */
	private static final String SCRIPT_ACL_DENIAL = "The user executing the script can't";

	private RedisFailures() {
	}

	/** The store's error code when the failure is a refusal that waiting will not cure, else null. */
	@Contract("null -> null")
	static @Nullable String refusal(@Nullable Throwable failure) {
		if (failure instanceof RedisOutOfMemoryException) {
			return "OOM";
		}
		if (failure instanceof RedisReadonlyException) {
			return "READONLY";
		}
		if (failure instanceof RedisAuthRequiredException || failure instanceof RedisWrongPasswordException) {
			return "NOAUTH";
		}
		// Timeouts, connection failures and the replies worth retrying (LOADING, BUSY, TRYAGAIN, MASTERDOWN,
		// CLUSTERDOWN) have classes of their own; a plain RedisException carrying a coded reply is the server's refusal.
		if (failure != null && failure.getClass() == RedisException.class) {
			Matcher reply = ERROR_REPLY.matcher(String.valueOf(failure.getMessage()));
			if (reply.matches()) {
				// Inside a script, Redis 7.0 reports a missing ACL permission as a plain ERR.
				return (reply.group(1).equals("ERR") && reply.group(2).startsWith(SCRIPT_ACL_DENIAL)) ? "NOPERM"
						: reply.group(1);
			}
		}
		return null;
	}

	/** The server's own words, without the connection details Redisson adds. */
	static String serverMessage(Throwable failure) {
		String message = String.valueOf(failure.getMessage());
		int suffix = message.indexOf(REDISSON_SUFFIX);
		message = (suffix < 0) ? message : message.substring(0, suffix);
		return message.endsWith(".") ? message.substring(0, message.length() - 1) : message;
	}

	/**
	 * The refusal in Redis' words, led by its code where Redis words it otherwise (an ACL denial inside a script is
	 * an {@code ERR}), so that logs and health say {@code NOPERM} for every missing permission.
	 */
	static String describe(Throwable failure, String code) {
		String message = serverMessage(failure);
		return message.startsWith(code + " ") ? message : code + " (" + message + ")";
	}

	/**
	 * @param action what distlock was doing, as in "acquire lock 'orders' for key '42'"
	 * @param keyPrefix {@code distlock.redis.key-prefix}, which the ACL and a wrong-type key concern
	 */
	static LockStoreException refused(Throwable failure, String code, String action, String lockName, String lockKey,
			String keyPrefix) {
		String message = "Redis refused to " + action + ": " + describe(failure, code) + ". " + advice(code, keyPrefix);
		return new LockStoreException(lockName, lockKey, code, message, failure);
	}

	/** What a user can do about a refusal. */
	static String advice(String code, String keyPrefix) {
		return switch (code) {
			case "NOPERM" -> "The Redis user distlock connects as lacks a permission distlock needs (a command, the key "
					+ "pattern '" + keyPrefix + ":*' or the channel pattern '" + keyPrefix + ":*'); grant the ACL in "
					+ "distlock's docs/operations.md, section \"Least-privilege Redis user\".";
			case "WRONGTYPE" -> "A key under '" + keyPrefix + ":' holds a value distlock did not write; something else "
					+ "uses distlock's key prefix: give distlock a prefix of its own (distlock.redis.key-prefix).";
			case "OOM" -> "Redis has reached maxmemory and, under maxmemory-policy noeviction, refuses every write, "
					+ "so no lock can be taken or renewed: free memory or raise maxmemory.";
			case "READONLY" -> "distlock is connected to a read-only replica: point it at the master (or configure "
					+ "Sentinel, which finds the master).";
			case "NOAUTH" -> "Redis asks for a password distlock did not give, or rejected it: check "
					+ "spring.data.redis.username and spring.data.redis.password.";
			case "MISCONF" -> "Redis refuses writes because it cannot save to disk: fix its persistence (see its log).";
			default -> "Retrying will not help; fix the cause on the Redis side.";
		};
	}

}
