package io.github.distlock.autoconfigure;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.core.Ordered;

import io.github.distlock.OnLost;

/**
 * Settings of distlock, under {@code distlock.*}.
 */
@ConfigurationProperties("distlock")
public class DistLockProperties {

	/**
	 * Whether @DistributedLock methods are locked. When false, no lock beans are created and annotated methods run
	 * unlocked.
	 */
	private boolean enabled = true;

	/**
	 * Prefix of every Redis key and channel distlock uses.
	 */
	private String keyPrefix = "distlock";

	/**
	 * Default lease: the lock's time to live in Redis, renewed while the method runs.
	 */
	private Duration lease = Duration.ofSeconds(30);

	/**
	 * Default time a caller waits for a lock before LockAcquisitionException. Zero tries once.
	 */
	private Duration waitTime = Duration.ofSeconds(5);

	/**
	 * Default ceiling on renewal: a lock expires no later than this after it was acquired. None when unset.
	 */
	private Duration maxLease;

	/**
	 * Default reaction to a lock lost while its method runs: ROLLBACK (refuse the commit, then throw
	 * LockLostException), INTERRUPT (as ROLLBACK, and interrupt the method's thread) or IGNORE (report only).
	 */
	private OnLost onLost = OnLost.ROLLBACK;

	private final Aop aop = new Aop();

	private final Redis redis = new Redis();

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public String getKeyPrefix() {
		return this.keyPrefix;
	}

	public void setKeyPrefix(String keyPrefix) {
		this.keyPrefix = keyPrefix;
	}

	public Duration getLease() {
		return this.lease;
	}

	public void setLease(Duration lease) {
		this.lease = lease;
	}

	public Duration getWaitTime() {
		return this.waitTime;
	}

	public void setWaitTime(Duration waitTime) {
		this.waitTime = waitTime;
	}

	public Duration getMaxLease() {
		return this.maxLease;
	}

	public void setMaxLease(Duration maxLease) {
		this.maxLease = maxLease;
	}

	public OnLost getOnLost() {
		return this.onLost;
	}

	public void setOnLost(OnLost onLost) {
		this.onLost = onLost;
	}

	public Aop getAop() {
		return this.aop;
	}

	public Redis getRedis() {
		return this.redis;
	}

	/** Where the lock advice sits among other advice. */
	public static class Aop {

		/**
		 * The default order: outside @Transactional (lowest precedence), Spring's @Retryable (lowest - 1) and
		 * resilience4j's aspects (lowest - 5 to - 1), so the lock covers the transaction's commit and every retry.
		 */
		public static final int DEFAULT_ORDER = Ordered.LOWEST_PRECEDENCE - 10;

		/**
		 * Order of the lock advice. Lower values run further outside; the default wraps @Transactional,
		 * @Retryable and resilience4j's aspects.
		 */
		private int order = DEFAULT_ORDER;

		public int getOrder() {
			return this.order;
		}

		public void setOrder(int order) {
			this.order = order;
		}

	}

	/** How distlock reaches Redis when the application defines no RedissonClient. */
	public static class Redis {

		/**
		 * Location of a Redisson YAML configuration file (such as classpath:redisson.yaml or file:/etc/redisson.yaml)
		 * to build the client from. When unset, the client is built from spring.data.redis.*.
		 */
		private String config;

		public String getConfig() {
			return this.config;
		}

		public void setConfig(String config) {
			this.config = config;
		}

	}

}
