package io.github.distlock.test;

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

	@Override
	public void beforeAll(ExtensionContext context) {
		this.server = this.processOnly ? RedisServers.startProcess() : RedisServers.start();
	}

	@Override
	public void afterAll(ExtensionContext context) {
		try (RespClient client = this.server.client()) {
			List<String> left = client.keys("distlock*");
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

	/** Properties that point Spring Boot's Redis settings at this server. */
	public String[] springProperties() {
		return new String[] { "spring.data.redis.host=" + host(), "spring.data.redis.port=" + port() };
	}

}
