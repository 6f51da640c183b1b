package io.github.distlock.test;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Gives a test class its own real Redis server, and fails the class if it leaves lock keys behind.
 *
 * <pre>{@code
 * @RegisterExtension
 * static RedisExtension redis = RedisExtension.anyServer();
 * }</pre>
 */
public final class RedisExtension implements BeforeAllCallback, AfterAllCallback {

	private final boolean processOnly;

	private RedisServer server;

	private RedisExtension(boolean processOnly) {
		this.processOnly = processOnly;
	}

	/** Redis from whichever source this machine has. */
	public static RedisExtension anyServer() {
		return new RedisExtension(false);
	}

	/** Redis as a local process, for tests that pause, kill or restart it. */
	public static RedisExtension localProcess() {
		return new RedisExtension(true);
	}

	/**
	 * Set to {@code least-privilege} (the build's second test run does), every test class of this extension runs on
	 * a Redis where distlock connects as the documented least-privileged user and the default user is off.
	 */
	public static final String MODE_PROPERTY = "distlock.test.redis";

	@Override
	public void beforeAll(ExtensionContext context) {
		if ("least-privilege".equals(System.getProperty(MODE_PROPERTY))) {
			this.server = LeastPrivilegeRedis.start();
		}
		else {
			this.server = this.processOnly ? RedisServers.startProcess() : RedisServers.start();
		}
	}

	@Override
	public void afterAll(ExtensionContext context) {
		try (RespClient client = this.server.client()) {
			List<String> left = client.lockKeys("distlock*");
			if (!left.isEmpty()) {
				throw new AssertionError("Lock keys left in Redis after " + context.getDisplayName() + ": " + left);
			}
		}
		finally {
			this.server.close();
		}
	}

	public RedisServer server() {
		return this.server;
	}

	public String host() {
		return this.server.host();
	}

	public int port() {
		return this.server.port();
	}

	public String url() {
		return this.server.url();
	}

	public RespClient client() {
		return this.server.client();
	}

	/** Properties that point Spring Boot's Redis settings at this server, as the user distlock connects as. */
	public String[] springProperties() {
		List<String> properties = new ArrayList<>(
				List.of("spring.data.redis.host=" + host(), "spring.data.redis.port=" + port()));
		if (this.server.username() != null) {
			properties.add("spring.data.redis.username=" + this.server.username());
			properties.add("spring.data.redis.password=" + this.server.password());
		}
		return properties.toArray(String[]::new);
	}

}
