package io.github.distlock.autoconfigure;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every {@code distlock.*} duration and count is checked at start-up, whether or not any method would use it: a bad
 * value fails start-up with a message naming the property, what it must be and the value given.
 */
class PropertyValidationTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DistLockAutoConfiguration.class));

	@ParameterizedTest(name = "{0}={1}")
	@CsvSource({ "distlock.lease, 0ms, at least 1ms", "distlock.max-lease, 0s, at least 1ms",
			"distlock.wait-time, -1s, must not be negative", "distlock.health.timeout, -1s, longer than zero",
			"distlock.health.max-renewal-lag, 0s, longer than zero",
			"distlock.redis.replica-ack-timeout, 0ms, at least 1ms",
			"distlock.redis.min-replicas-acked, -1, 0 (no acknowledgement) or more",
			"distlock.redlock.node-timeout, 0ms, longer than zero", "distlock.redlock.retry-delay, -5ms, not be negative",
			"distlock.jdbc.poll-interval, 0ms, longer than zero", "distlock.jdbc.statement-timeout, -1s, longer than zero",
			"distlock.etcd.lease-ttl, 0s, longer than zero", "distlock.etcd.connect-timeout, 0s, longer than zero",
			"distlock.etcd.election-timeout, 0ms, longer than zero",
			"distlock.zookeeper.session-timeout, 0s, longer than zero",
			"distlock.zookeeper.connection-timeout, -1s, longer than zero" })
	void aBadValueFailsStartUpNamingTheProperty(String property, String value, String reason) {
		this.runner.withPropertyValues(property + "=" + value).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).rootCause()
				.hasMessageStartingWith(property + " ")
				.hasMessageContaining(reason);
		});
	}

}
