package io.github.distlock.redis;

import java.util.concurrent.TimeoutException;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.redisson.config.Config;

import io.github.distlock.LockStoreConnectionException;
import io.github.distlock.fixtures.redis.RedisTestClients;
import io.github.distlock.fixtures.redis.TlsRedis;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a TLS client's connection timeout is blamed on, decided by probing a real Redis with TLS and plain ports. The
 * timeout itself is the one Redisson reports when its connection attempt outlived the connect timeout; what the probe
 * finds on the server decides the message. A cold JVM on a loaded machine can take longer than a short connect
 * timeout for its first TLS connection to a server that is fine: that must not read as a port without TLS.
 */
class RedisConnectionDiagnosisIntegrationTests {

	private static final long TIMEOUT_MILLIS = 2000;

	private static TlsRedis redis;

	@BeforeAll
	static void startServer() {
		redis = TlsRedis.start("IP:127.0.0.1");
	}

	@AfterAll
	static void stopServer() {
		redis.close();
	}

	@Test
	void aTimeoutAgainstAServerThatAnswersInTlsAsksForALongerConnectTimeout() {
		LockStoreConnectionException diagnosis = diagnose("rediss://127.0.0.1:" + redis.tlsPort());
		assertThat(diagnosis.getMessage())
			.contains("answers in TLS, but not within " + TIMEOUT_MILLIS + " ms")
			.doesNotContain("plain Redis");
		assertThat(diagnosis.getAction()).contains("spring.data.redis.connect-timeout");
	}

	@Test
	void aTimeoutAgainstAPlainPortSaysThePortServesPlainRedis() {
		LockStoreConnectionException diagnosis = diagnose("rediss://127.0.0.1:" + redis.plainPort());
		assertThat(diagnosis.getMessage()).contains("answers plain Redis, not TLS");
	}

	private static LockStoreConnectionException diagnose(String address) {
		Config config = new Config();
		config.setSslTrustManagerFactory(RedisTestClients.trusting(redis.caCertificate()));
		config.useSingleServer().setAddress(address);
		RedisTarget target = RedisTarget.orUnknown(config);
		return RedisConnectionDiagnosis.diagnose(new TimeoutException(), target, TIMEOUT_MILLIS,
				ConnectionSettingNames.SPRING_DATA_REDIS);
	}

}
