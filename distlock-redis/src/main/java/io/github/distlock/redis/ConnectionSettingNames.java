package io.github.distlock.redis;

/**
 * How the settings that fix a failed connection are named where the application configured the connection, for the
 * advice of a start-up failure ({@link RedisStartupCheck}): Spring Boot's {@code spring.data.redis.*} (or a Redisson
 * file), or the RedLock engine's {@code distlock.redlock.*}.
 *
 * @param credentials where the user name and password are set
 * @param password where the password (and user name) are set, for a server that asked for one
 * @param tlsOff how TLS is turned off
 * @param tlsOn how TLS is turned on
 * @param trust where the trusted CA is given
 * @param connectTimeout where the connect timeout is set, for a server that answered too late
 */
public record ConnectionSettingNames(String credentials, String password, String tlsOff, String tlsOn, String trust,
		String connectTimeout) {

	/** Spring Boot's Redis settings, or a Redisson file: the single-Redis engine's. */
	public static final ConnectionSettingNames SPRING_DATA_REDIS = new ConnectionSettingNames(
			"spring.data.redis.username and spring.data.redis.password, or username and password in the Redisson file",
			"spring.data.redis.password (and spring.data.redis.username for an ACL user), or password in the Redisson "
					+ "file",
			"redis:// instead of rediss://, spring.data.redis.ssl.enabled=false",
			"rediss://, spring.data.redis.ssl.enabled=true or an SSL bundle",
			"an SSL bundle with its truststore (spring.data.redis.ssl.bundle), or sslTruststore in the Redisson file",
			"spring.data.redis.connect-timeout, or connectTimeout in the Redisson file");

	/** The RedLock engine's settings. */
	public static final ConnectionSettingNames REDLOCK = new ConnectionSettingNames(
			"distlock.redlock.username and distlock.redlock.password",
			"distlock.redlock.password (and distlock.redlock.username for an ACL user)",
			"redis:// instead of rediss:// in distlock.redlock.nodes",
			"rediss:// in distlock.redlock.nodes, with distlock.redlock.ssl.bundle for a private CA",
			"an SSL bundle with its truststore (distlock.redlock.ssl.bundle)", "distlock.redlock.connect-timeout");

}
