package io.github.distlock.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.DeprecatedConfigurationProperty;
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
	private @Nullable Duration maxLease;

	/**
	 * Default reaction to a lock lost while its method runs: ROLLBACK (refuse the commit, then throw
	 * LockLostException), INTERRUPT (as ROLLBACK, and interrupt the method's thread) or IGNORE (report only).
	 */
	private OnLost onLost = OnLost.ROLLBACK;

	private final Aop aop = new Aop();

	private final Redis redis = new Redis();

	private final Redlock redlock = new Redlock();

	private final Jdbc jdbc = new Jdbc();

	private final Zookeeper zookeeper = new Zookeeper();

	private final Shedlock shedlock = new Shedlock();

	private final Etcd etcd = new Etcd();

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

	public Jdbc getJdbc() {
		return this.jdbc;
	}

	public Etcd getEtcd() {
		return this.etcd;
	}

	public Shedlock getShedlock() {
		return this.shedlock;
	}

	public Zookeeper getZookeeper() {
		return this.zookeeper;
	}

	public Redis getRedis() {
		return this.redis;
	}

	public Redlock getRedlock() {
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
	public static class Redis {

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

	/**
	 * A RedLock over independent Redis masters, instead of one Redis: set {@code nodes} to turn it on.
	 */
	public static class Redlock {

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

	public static class Jdbc {

		/**
		 * Name of the lock table, optionally schema-qualified.
		 */
		private String tableName = "distlock_locks";

		/**
		 * Whether to create the lock table at start-up when it does not exist (with the DDL shipped in
		 * distlock-jdbc). Off by default: most teams create tables with their migration tool.
		 */
		private boolean initializeSchema = false;

		/**
		 * How often a waiting caller asks the table again. Callers waiting in the same application are woken at
		 * once by its own releases.
		 */
		private Duration pollInterval = Duration.ofMillis(100);

		/**
		 * Longest time one lock statement may take (whole seconds, at least one).
		 */
		private Duration statementTimeout = Duration.ofSeconds(5);

		public String getTableName() {
			return this.tableName;
		}

		public void setTableName(String tableName) {
			this.tableName = tableName;
		}

		public boolean isInitializeSchema() {
			return this.initializeSchema;
		}

		public void setInitializeSchema(boolean initializeSchema) {
			this.initializeSchema = initializeSchema;
		}

		public Duration getPollInterval() {
			return this.pollInterval;
		}

		public void setPollInterval(Duration pollInterval) {
			this.pollInterval = DurationSettings.positive("distlock.jdbc.poll-interval", pollInterval);
		}

		public Duration getStatementTimeout() {
			return this.statementTimeout;
		}

		public void setStatementTimeout(Duration statementTimeout) {
			this.statementTimeout = DurationSettings.positive("distlock.jdbc.statement-timeout", statementTimeout);
		}

	}

	/** The etcd engine (distlock-etcd), when distlock makes its own jetcd client. */
	public static class Etcd {

		/**
		 * The cluster's client endpoints, such as http://etcd-1:2379. Needed unless the application defines an
		 * io.etcd.jetcd.Client bean.
		 */
		private List<String> endpoints = new ArrayList<>();

		/**
		 * User to authenticate as, when etcd's authentication is on.
		 */
		private @Nullable String username;

		/**
		 * Password of that user.
		 */
		private @Nullable String password;

		/**
		 * Prefix under which every lock's keys live.
		 */
		private String root = "/distlock";

		/**
		 * Time to live of the instance's etcd lease, kept alive while the application runs: how long a crashed
		 * instance keeps its locks.
		 */
		private Duration leaseTtl = Duration.ofSeconds(10);

		/**
		 * Longest wait for etcd's answer at start-up, and for each connection attempt.
		 */
		private Duration connectTimeout = Duration.ofSeconds(5);

		/**
		 * The cluster's election timeout (etcd's --election-timeout): a call with no answer within it is sent again,
		 * as the leader it went to may have died and a new one may answer.
		 */
		// etcd's default, as EtcdLockEngine.DEFAULT_ELECTION_TIMEOUT (not referred to: the etcd engine is optional).
		private Duration electionTimeout = Duration.ofSeconds(1);

		public List<String> getEndpoints() {
			return this.endpoints;
		}

		public void setEndpoints(List<String> endpoints) {
			this.endpoints = endpoints;
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

		public String getRoot() {
			return this.root;
		}

		public void setRoot(String root) {
			this.root = root;
		}

		public Duration getLeaseTtl() {
			return this.leaseTtl;
		}

		public void setLeaseTtl(Duration leaseTtl) {
			this.leaseTtl = DurationSettings.positive("distlock.etcd.lease-ttl", leaseTtl);
		}

		public Duration getConnectTimeout() {
			return this.connectTimeout;
		}

		public void setConnectTimeout(Duration connectTimeout) {
			this.connectTimeout = DurationSettings.positive("distlock.etcd.connect-timeout", connectTimeout);
		}

		public Duration getElectionTimeout() {
			return this.electionTimeout;
		}

		public void setElectionTimeout(Duration electionTimeout) {
			this.electionTimeout = DurationSettings.positive("distlock.etcd.election-timeout", electionTimeout);
		}

	}

	/** ShedLock's lock provider on distlock (distlock-shedlock). */
	public static class Shedlock {

		/**
		 * Whether to define ShedLock's LockProvider on the lock engine when the application defines none.
		 */
		private boolean enabled = true;

		/**
		 * The distlock lock name whose keys ShedLock's lock names are. Applications that share a store and must
		 * not share their jobs' locks use different names.
		 */
		private String name = "shedlock";

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public String getName() {
			return this.name;
		}

		public void setName(String name) {
			this.name = name;
		}

	}

	/** The ZooKeeper engine (distlock-zookeeper), when distlock makes its own Curator client. */
	public static class Zookeeper {

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

}
