package io.github.distlock.redis;

import java.util.List;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;
import org.redisson.config.BaseConfig;
import org.redisson.config.Config;

/**
 * The Redis a Redisson configuration points at, as users wrote it, for messages: addresses without any credentials
 * they may carry, the user, whether TLS is asked for, and the server settings of the configuration's mode.
 */
final class RedisTarget {

	/** Credentials in an address ({@code redis://user:secret@host:6379}) never reach a message. */
	private static final Pattern USER_INFO = Pattern.compile("(?<=://)[^@/]*@");

	private final String description;

	private final String username;

	private final boolean tls;

	private final @Nullable BaseConfig<?> server;

	private final Config config;

	private RedisTarget(String description, String username, boolean tls, @Nullable BaseConfig<?> server,
			Config config) {
		this.description = description;
		this.username = username;
		this.tls = tls;
		this.server = server;
		this.config = config;
	}

	/**
	 * The target of a configuration, or null for the modes distlock does not check (replicated and master/replica
	 * sets). The server settings returned are the configuration's own: change a copy, not a client's configuration.
	 */
	static @Nullable RedisTarget of(Config config) {
		if (config.isSingleConfig()) {
			String address = config.useSingleServer().getAddress();
			return new RedisTarget("Redis at " + withoutCredentials(address), config.getUsername(), isTls(address),
					config.useSingleServer(), config);
		}
		if (config.isSentinelConfig()) {
			List<String> sentinels = config.useSentinelServers().getSentinelAddresses();
			return new RedisTarget("Redis master '" + config.useSentinelServers().getMasterName()
					+ "' through Sentinel at " + withoutCredentials(sentinels), config.getUsername(),
					sentinels.stream().anyMatch(RedisTarget::isTls), config.useSentinelServers(), config);
		}
		if (config.isClusterConfig()) {
			List<String> nodes = config.useClusterServers().getNodeAddresses();
			return new RedisTarget("Redis Cluster at " + withoutCredentials(nodes), config.getUsername(),
					nodes.stream().anyMatch(RedisTarget::isTls), config.useClusterServers(), config);
		}
		return null;
	}

	/** The target of a configuration, or a plain "Redis" for the modes {@link #of} does not describe. */
	static RedisTarget orUnknown(Config config) {
		RedisTarget target = of(config);
		return (target != null) ? target : new RedisTarget("Redis", config.getUsername(), false, null, config);
	}

	private static boolean isTls(String address) {
		return address != null && address.startsWith("rediss://");
	}

	static String withoutCredentials(String address) {
		return (address != null) ? USER_INFO.matcher(address).replaceFirst("") : "(no address)";
	}

	private static String withoutCredentials(List<String> addresses) {
		return String.join(", ", addresses.stream().map(RedisTarget::withoutCredentials).toList());
	}

	/** Such as "Redis at redis://10.0.0.5:6379". */
	String description() {
		return this.description;
	}

	/** The user as a message names it: {@code 'app'}, or the default user. */
	String user() {
		return (this.username != null) ? "user '" + this.username + "'" : "the default user";
	}

	boolean tls() {
		return this.tls;
	}

	/** The whole configuration, whose TLS material (Redisson 4.7 keeps it there) a probe of the server needs. */
	Config config() {
		return this.config;
	}

	@Nullable BaseConfig<?> server() {
		return this.server;
	}

	@Override
	public String toString() {
		return this.description;
	}

}
