package io.github.distlock.redis;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.redisson.config.Config;

import io.github.distlock.fixtures.redis.RedisCluster;
import io.github.distlock.fixtures.redis.RedisClusterExtension;
import io.github.distlock.fixtures.redis.RedisProcess;
import io.github.distlock.fixtures.redis.RespClient;

import static org.assertj.core.api.Assertions.assertThat;
import io.github.distlock.fixtures.redis.RedisTestClients;

/**
 * The engine on a real Redis Cluster whose clients know only its TLS ports (three masters; the seeds are
 * {@code rediss://} addresses, the CA that signed the nodes' certificates trusted, the host name checked). The
 * connections the engine opens itself for its locks' shard channels come from Redisson's client for each master, which
 * carries the TLS settings: a waiter is subscribed over TLS on the lock's master, hears its hand-overs, and is
 * subscribed again over TLS after its connection was cut.
 */
class RedisClusterTlsIntegrationTests extends ClusterWaitersTestSupport {

	@RegisterExtension
	static final RedisClusterExtension redis = RedisClusterExtension.tlsMasters(3);

	@Override
	RedisCluster cluster() {
		return redis.cluster();
	}

	@Override
	Config config() {
		return RedisTestClients.clusterTlsConfig(cluster(), Duration.ofSeconds(2));
	}

	@Test
	void aContendedLocksWaitersAreSubscribedOverTlsAndHearTheHandOvers() throws Exception {
		Contended lock = contended("tls");
		assertThat(subscribedOnPorts(lock.master())).as("the waiting engine's subscription, on the master's TLS port")
			.containsExactly(cluster().tlsPort(lock.master()));
		handOverToBoth(lock, lock.master());
	}

	@Test
	void aCutSubscriptionIsMadeAgainOverTls() throws Exception {
		Contended lock = contended("tls-cut");
		try (RespClient client = lock.master().client()) {
			assertThat((Long) client.call("CLIENT", "KILL", "TYPE", "pubsub")).as("subscriptions cut").isPositive();
		}
		awaitSubscribed(lock.master(), lock.key());
		assertThat(subscribedOnPorts(lock.master())).as("subscribed again, over TLS")
			.containsExactly(cluster().tlsPort(lock.master()));
		handOverToBoth(lock, lock.master());
	}

	/**
	 * The server ports that the node's clients with shard subscriptions connected to ({@code laddr} in
	 * {@code CLIENT LIST}): the TLS port for a connection over TLS, the plain port otherwise.
	 */
	private static List<Integer> subscribedOnPorts(RedisProcess node) {
		try (RespClient client = node.client()) {
			return String.valueOf(client.call("CLIENT", "LIST"))
				.lines()
				.filter((line) -> !line.contains(" ssub=0 "))
				.map((line) -> field(line, "laddr"))
				.map((address) -> Integer.valueOf(address.substring(address.lastIndexOf(':') + 1)))
				.distinct()
				.toList();
		}
	}

	private static String field(String clientLine, String name) {
		for (String field : clientLine.split(" ")) {
			if (field.startsWith(name + "=")) {
				return field.substring(name.length() + 1);
			}
		}
		throw new IllegalStateException("No " + name + " in CLIENT LIST line: " + clientLine);
	}

}
