package io.github.distlock.autoconfigure;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * Settings of the ZooKeeper engine, under {@code distlock.zookeeper.*}.
 */
public class ZooKeeperLockProperties {

	/**
	 * The ensemble, as host:port pairs separated by commas, optionally followed by a chroot path. Needed unless
	 * the application defines a CuratorFramework bean.
	 */
	private @Nullable String connectString;

	/**
	 * Path under which every lock's nodes live.
	 */
	private String root = "/distlock";

	/**
	 * Session timeout asked of the server (which bounds it by its tick time): how long a crashed instance keeps
	 * its locks.
	 */
	private Duration sessionTimeout = Duration.ofSeconds(15);

	/**
	 * Longest wait for the connection at start-up, and for each reconnection attempt.
	 */
	private Duration connectionTimeout = Duration.ofSeconds(5);

	public @Nullable String getConnectString() {
		return this.connectString;
	}

	public void setConnectString(@Nullable String connectString) {
		this.connectString = connectString;
	}

	public String getRoot() {
		return this.root;
	}

	public void setRoot(String root) {
		this.root = root;
	}

	public Duration getSessionTimeout() {
		return this.sessionTimeout;
	}

	public void setSessionTimeout(Duration sessionTimeout) {
		this.sessionTimeout = DurationSettings.positive("distlock.zookeeper.session-timeout", sessionTimeout);
	}

	public Duration getConnectionTimeout() {
		return this.connectionTimeout;
	}

	public void setConnectionTimeout(Duration connectionTimeout) {
		this.connectionTimeout = DurationSettings.positive("distlock.zookeeper.connection-timeout",
				connectionTimeout);
	}

}
