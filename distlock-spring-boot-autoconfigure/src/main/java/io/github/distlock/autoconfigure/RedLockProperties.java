package io.github.distlock.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * A RedLock over independent Redis masters, instead of one Redis: set {@code nodes} to turn it on.
 * <p>
 * Settings of the RedLock engine, under {@code distlock.redlock.*}.
 */
public class RedLockProperties {

	/**
	 * The independent Redis masters (redis:// or rediss:// URLs, at least 3, best an odd number), each a single
	 * server and no replica of another. A lock is held when a majority of them hold it. When set, distlock locks
	 * on these instead of spring.data.redis.*.
	 */
	private List<String> nodes = new ArrayList<>();

	/** The user distlock connects to every master as (Redis ACL), or unset for the default user. */
	private @Nullable String username;

	/** The password distlock connects to every master with. */
	private @Nullable String password;

	/**
	 * How long one master's answer is waited for: a lock attempt takes at most this long whichever masters are
	 * down. Far below the lease; on one network, a few round trips.
	 */
	private Duration nodeTimeout = Duration.ofMillis(200);

	/** How long connecting to one master may take, at start-up and on every reconnection. */
	private Duration connectTimeout = Duration.ofSeconds(2);

	/** The longest random pause between attempts when a lock is held elsewhere or no majority was reached. */
	private Duration retryDelay = Duration.ofMillis(50);

	/** The name distlock's connections give themselves on every master (CLIENT SETNAME), or unset for none. */
	private @Nullable String clientName;

	private final Ssl ssl = new Ssl();

	public Ssl getSsl() {
		return this.ssl;
	}

	/** TLS to the masters. */
	public static class Ssl {

		/**
		 * The SSL bundle (spring.ssl.bundle.*) whose trust material, and key material for mutual TLS, every
		 * rediss:// master is connected with; unset, the JVM's default trust store.
		 */
		private @Nullable String bundle;

		public @Nullable String getBundle() {
			return this.bundle;
		}

		public void setBundle(@Nullable String bundle) {
			this.bundle = bundle;
		}

	}

	public @Nullable String getClientName() {
		return this.clientName;
	}

	public void setClientName(@Nullable String clientName) {
		this.clientName = clientName;
	}

	public List<String> getNodes() {
		return this.nodes;
	}

	public void setNodes(List<String> nodes) {
		this.nodes = nodes;
	}

	public @Nullable String getUsername() {
		return this.username;
	}

	public void setUsername(@Nullable String username) {
		this.username = username;
	}

	public @Nullable String getPassword() {
		return this.password;
	}

	public void setPassword(@Nullable String password) {
		this.password = password;
	}

	public Duration getNodeTimeout() {
		return this.nodeTimeout;
	}

	public void setNodeTimeout(Duration nodeTimeout) {
		this.nodeTimeout = DurationSettings.positive("distlock.redlock.node-timeout", nodeTimeout);
	}

	public Duration getConnectTimeout() {
		return this.connectTimeout;
	}

	public void setConnectTimeout(Duration connectTimeout) {
		this.connectTimeout = DurationSettings.positive("distlock.redlock.connect-timeout", connectTimeout);
	}

	public Duration getRetryDelay() {
		return this.retryDelay;
	}

	public void setRetryDelay(Duration retryDelay) {
		this.retryDelay = DurationSettings.notNegative("distlock.redlock.retry-delay", retryDelay);
	}

}
