package io.github.distlock.test;

import java.util.List;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Gives a test class its own real Redis Cluster ({@link RedisCluster}), started once for the class, and fails the
 * class if it leaves lock keys behind on any master. A cluster that cannot start fails the class, saying why.
 *
 * <pre>{@code
 * @RegisterExtension
 * static RedisClusterExtension cluster = RedisClusterExtension.masters(3);
 * }</pre>
 */
public final class RedisClusterExtension implements BeforeAllCallback, AfterAllCallback {

	private final int masters;

	private final int replicasPerMaster;

	private final boolean tls;

	private RedisCluster cluster;

	private RedisClusterExtension(int masters, int replicasPerMaster, boolean tls) {
		this.masters = masters;
		this.replicasPerMaster = replicasPerMaster;
		this.tls = tls;
	}

	/** A cluster of this many masters and no replicas. */
	public static RedisClusterExtension masters(int masters) {
		return new RedisClusterExtension(masters, 0, false);
	}

	/** A cluster of this many masters, each with this many replicas. */
	public static RedisClusterExtension masters(int masters, int replicasPerMaster) {
		return new RedisClusterExtension(masters, replicasPerMaster, false);
	}

	/** A cluster of this many masters and no replicas, serving clients over TLS ({@link RedisCluster#startTls}). */
	public static RedisClusterExtension tlsMasters(int masters) {
		return new RedisClusterExtension(masters, 0, true);
	}

	@Override
	public void beforeAll(ExtensionContext context) {
		this.cluster = this.tls ? RedisCluster.startTls(this.masters, this.replicasPerMaster)
				: RedisCluster.start(this.masters, this.replicasPerMaster);
	}

	@Override
	public void afterAll(ExtensionContext context) {
		try {
			List<String> left = RespClient.withoutTokenFloors(this.cluster.keys("distlock*"));
			if (!left.isEmpty()) {
				throw new AssertionError("Lock keys left in Redis Cluster after " + context.getDisplayName() + ": "
						+ left);
			}
		}
		finally {
			this.cluster.close();
		}
	}

	public RedisCluster cluster() {
		return this.cluster;
	}

	/** Properties that point Spring Boot's Redis settings at this cluster. */
	public String[] springProperties() {
		return new String[] { "spring.data.redis.cluster.nodes=" + this.cluster.springNodes() };
	}

}
