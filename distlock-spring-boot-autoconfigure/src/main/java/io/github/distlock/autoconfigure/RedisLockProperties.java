package io.github.distlock.autoconfigure;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * Settings of the Redis engine, under {@code distlock.redis.*}.
 */
public class RedisLockProperties {

	/**
	 * Prefix of every Redis key and channel distlock uses (the Redis and RedLock engines). Unset: "distlock", or
	 * the deprecated distlock.key-prefix.
	 */
	private @Nullable String keyPrefix;

	/**
	 * Location of a Redisson YAML configuration file (such as classpath:redisson.yaml or file:/etc/redisson.yaml)
	 * to build the client from. When unset, the client is built from spring.data.redis.*.
	 */
	private @Nullable String config;

	/**
	 * How many replicas must acknowledge a new lock (Redis WAIT) before the caller gets it; with fewer within
	 * replica-ack-timeout the lock is released and the call fails. 0 (the default) asks for no acknowledgement.
	 * No replica connected never counts as enough.
	 */
	private int minReplicasAcked;

	/** How long to wait for the replicas' acknowledgement of a new lock. */
	private Duration replicaAckTimeout = Duration.ofSeconds(1);

	public @Nullable String getKeyPrefix() {
		return this.keyPrefix;
	}

	public void setKeyPrefix(@Nullable String keyPrefix) {
		this.keyPrefix = keyPrefix;
	}

	public @Nullable String getConfig() {
		return this.config;
	}

	public void setConfig(@Nullable String config) {
		this.config = config;
	}

	public int getMinReplicasAcked() {
		return this.minReplicasAcked;
	}

	public void setMinReplicasAcked(int minReplicasAcked) {
		if (minReplicasAcked < 0) {
			throw new IllegalArgumentException(
					"distlock.redis.min-replicas-acked must be 0 (no acknowledgement) or more, was " + minReplicasAcked);
		}
		this.minReplicasAcked = minReplicasAcked;
	}

	public Duration getReplicaAckTimeout() {
		return this.replicaAckTimeout;
	}

	public void setReplicaAckTimeout(Duration replicaAckTimeout) {
		this.replicaAckTimeout = DurationSettings.lease("distlock.redis.replica-ack-timeout", replicaAckTimeout);
	}

}
