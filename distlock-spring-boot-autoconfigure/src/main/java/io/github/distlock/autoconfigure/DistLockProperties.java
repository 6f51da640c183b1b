package io.github.distlock.autoconfigure;

import java.time.Duration;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.DeprecatedConfigurationProperty;
import org.springframework.boot.context.properties.NestedConfigurationProperty;
import org.springframework.context.annotation.AdviceMode;
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
	 * The lock engine to use when several are on the class path: redis, jdbc, zookeeper or etcd. Unset, the one present is used.
	 */
	private @Nullable String backend;

	/** The Redis key prefix when none is set. */
	static final String DEFAULT_KEY_PREFIX = "distlock";

	/** Prefix of every Redis key and channel distlock uses; replaced by distlock.redis.key-prefix. */
	private @Nullable String keyPrefix;

	/**
	 * Default lease: how long the store keeps a lock whose holder stops renewing it; renewed while the method runs.
	 */
	private Duration lease = Duration.ofSeconds(30);

	/**
	 * Default time a caller waits for a lock before LockAcquisitionException. Zero tries once.
	 */
	private Duration waitTime = Duration.ofSeconds(5);

	/**
	 * Default ceiling on renewal: a lock expires no later than this after it was acquired. None when unset.
	 */
	private @Nullable Duration maxLease;

	/**
	 * Default reaction to a lock lost while its method runs: ROLLBACK (refuse the commit, then throw
	 * LockLostException), INTERRUPT (as ROLLBACK, and interrupt the method's thread) or IGNORE (report only).
	 */
	private OnLost onLost = OnLost.ROLLBACK;

	private final Aop aop = new Aop();

	@NestedConfigurationProperty
	private final RedisLockProperties redis = new RedisLockProperties();

	@NestedConfigurationProperty
	private final RedLockProperties redlock = new RedLockProperties();

	@NestedConfigurationProperty
	private final JdbcLockProperties jdbc = new JdbcLockProperties();

	@NestedConfigurationProperty
	private final ZooKeeperLockProperties zookeeper = new ZooKeeperLockProperties();

	@NestedConfigurationProperty
	private final ShedLockProviderProperties shedlock = new ShedLockProviderProperties();

	/** Spring Integration's lock registry on distlock (distlock-spring-integration). */
	@NestedConfigurationProperty
	private final LockRegistryProperties lockRegistry = new LockRegistryProperties();

	@NestedConfigurationProperty
	private final LeaderProperties leader = new LeaderProperties();

	@NestedConfigurationProperty
	private final EtcdLockProperties etcd = new EtcdLockProperties();

	private final Health health = new Health();

	private final Endpoint endpoint = new Endpoint();

	public @Nullable String getBackend() {
		return this.backend;
	}

	public void setBackend(@Nullable String backend) {
		this.backend = backend;
	}

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	/** @deprecated the Redis engines' setting moved to {@code distlock.redis.key-prefix} */
	@Deprecated(since = "0.1.0")
	@DeprecatedConfigurationProperty(replacement = "distlock.redis.key-prefix",
			reason = "Only the Redis and RedLock engines use it")
	public @Nullable String getKeyPrefix() {
		return this.keyPrefix;
	}

	/** @deprecated the Redis engines' setting moved to {@code distlock.redis.key-prefix} */
	@Deprecated(since = "0.1.0")
	public void setKeyPrefix(@Nullable String keyPrefix) {
		this.keyPrefix = keyPrefix;
	}

	/**
	 * The prefix of every Redis key and channel: {@code distlock.redis.key-prefix}, else the deprecated
	 * {@code distlock.key-prefix}, else {@value #DEFAULT_KEY_PREFIX}.
	 */
	public String redisKeyPrefix() {
		if (this.redis.getKeyPrefix() != null) {
			return this.redis.getKeyPrefix();
		}
		return (this.keyPrefix != null) ? this.keyPrefix : DEFAULT_KEY_PREFIX;
	}

	public Duration getLease() {
		return this.lease;
	}

	public void setLease(Duration lease) {
		this.lease = DurationSettings.lease("distlock.lease", lease);
	}

	public Duration getWaitTime() {
		return this.waitTime;
	}

	public void setWaitTime(Duration waitTime) {
		this.waitTime = DurationSettings.notNegative("distlock.wait-time", waitTime);
	}

	public @Nullable Duration getMaxLease() {
		return this.maxLease;
	}

	public void setMaxLease(@Nullable Duration maxLease) {
		this.maxLease = DurationSettings.lease("distlock.max-lease", maxLease);
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

	public JdbcLockProperties getJdbc() {
		return this.jdbc;
	}

	public EtcdLockProperties getEtcd() {
		return this.etcd;
	}

	public ShedLockProviderProperties getShedlock() {
		return this.shedlock;
	}

	public LockRegistryProperties getLockRegistry() {
		return this.lockRegistry;
	}

	public LeaderProperties getLeader() {
		return this.leader;
	}

	public ZooKeeperLockProperties getZookeeper() {
		return this.zookeeper;
	}

	public RedisLockProperties getRedis() {
		return this.redis;
	}

	public RedLockProperties getRedlock() {
		return this.redlock;
	}

	public Health getHealth() {
		return this.health;
	}

	public Endpoint getEndpoint() {
		return this.endpoint;
	}

	/** The distlock health indicator. */
	public static class Health {

		/**
		 * Longest the health check waits for Redis; a hung Redis is reported DOWN after this instead of hanging the
		 * health endpoint.
		 */
		private Duration timeout = Duration.ofSeconds(1);

		/**
		 * How late lease renewal may run before health is DOWN: past it, held locks risk expiring while their work
		 * runs.
		 */
		private Duration maxRenewalLag = Duration.ofSeconds(5);

		public Duration getTimeout() {
			return this.timeout;
		}

		public void setTimeout(Duration timeout) {
			this.timeout = DurationSettings.positive("distlock.health.timeout", timeout);
		}

		public Duration getMaxRenewalLag() {
			return this.maxRenewalLag;
		}

		public void setMaxRenewalLag(Duration maxRenewalLag) {
			this.maxRenewalLag = DurationSettings.positive("distlock.health.max-renewal-lag", maxRenewalLag);
		}

	}

	/** The distlocks Actuator endpoint. */
	public static class Endpoint {

		/**
		 * Whether the endpoint offers a DELETE operation that removes a lock whoever holds it. Off by default; when
		 * on, it is protected like the application's other Actuator operations.
		 */
		private boolean forceRelease;

		public boolean isForceRelease() {
			return this.forceRelease;
		}

		public void setForceRelease(boolean forceRelease) {
			this.forceRelease = forceRelease;
		}

	}

	/** Where the lock advice sits among other advice. */
	public static class Aop {

		/**
		 * The default order: outside @Transactional (lowest precedence), Spring Retry's advisor (lowest - 1) and
		 * resilience4j's aspects (lowest - 5 to - 1), so the lock covers the transaction's commit and every retry.
		 */
		public static final int DEFAULT_ORDER = Ordered.LOWEST_PRECEDENCE - 10;

		/**
		 * Order of the lock advice among advice applied by order, in proxy mode. Lower values run further outside;
		 * the default wraps @Transactional, Spring Retry and resilience4j's aspects. Spring Framework's @Retryable and
		 * @ConcurrencyLimit always run inside the lock, and @Async outside it, whatever this order.
		 */
		private int order = DEFAULT_ORDER;

		/**
		 * How @DistributedLock is applied. "proxy": by Spring's proxies, which see only calls from other beans to
		 * public methods. "aspectj": by AspectJ's load-time weaving (distlock-aspectj, and the JVM started with
		 * -javaagent:aspectjweaver.jar), which also locks calls from inside the class and private, final and
		 * static methods.
		 */
		private AdviceMode mode = AdviceMode.PROXY;

		public int getOrder() {
			return this.order;
		}

		public void setOrder(int order) {
			this.order = order;
		}

		public AdviceMode getMode() {
			return this.mode;
		}

		public void setMode(AdviceMode mode) {
			this.mode = mode;
		}

	}

	/** How distlock reaches Redis when the application defines no RedissonClient. */

	/** The etcd engine (distlock-etcd), when distlock makes its own jetcd client. */

	/** ShedLock's lock provider on distlock (distlock-shedlock). */

	/** The ZooKeeper engine (distlock-zookeeper), when distlock makes its own Curator client. */

}
