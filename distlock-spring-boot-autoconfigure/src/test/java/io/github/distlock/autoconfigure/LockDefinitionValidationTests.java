package io.github.distlock.autoconfigure;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import io.github.distlock.DistributedLock;
import io.github.distlock.LockDefinitionException;
import io.github.distlock.test.RedisExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Declarations that cannot work stop the application at start-up, naming {@code Class#method} and the text.
 */
class LockDefinitionValidationTests {

	@RegisterExtension
	static final RedisExtension redis = RedisExtension.anyServer();

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, DistLockAutoConfiguration.class))
		.withPropertyValues(redis.springProperties());

	public static class BadKey {

		@DistributedLock(key = "#order.id +")
		public void pay(Object order) {
		}

	}

	public static class BadDuration {

		@DistributedLock(key = "#id", lease = "ten seconds")
		public void pay(String id) {
		}

	}

	public static class ZeroLease {

		@DistributedLock(key = "#id", lease = "0s")
		public void pay(String id) {
		}

	}

	public static class NegativeWait {

		@DistributedLock(key = "#id", waitTime = "-1s")
		public void pay(String id) {
		}

	}

	public static class BadPlaceholder {

		@DistributedLock(key = "#id", maxLease = "${no.such.property}")
		public void pay(String id) {
		}

	}

	public static class PrivateMethod {

		public void entry(String id) {
			pay(id);
		}

		@DistributedLock(key = "#id")
		private void pay(String id) {
		}

	}

	public static class FinalMethod {

		@DistributedLock(key = "#id")
		public final void pay(String id) {
		}

	}

	public static class StaticMethod {

		@DistributedLock(key = "#id")
		public static void pay(String id) {
		}

	}

	@Test
	void anInvalidKeyExpression() {
		assertStartUpFails(BadKey.class, "BadKey#pay", "#order.id +");
	}

	@Test
	void aMalformedDuration() {
		assertStartUpFails(BadDuration.class, "BadDuration#pay", "ten seconds");
	}

	@Test
	void aZeroLease() {
		assertStartUpFails(ZeroLease.class, "ZeroLease#pay", "must be positive");
	}

	@Test
	void aNegativeWaitTime() {
		assertStartUpFails(NegativeWait.class, "NegativeWait#pay", "-1s");
	}

	@Test
	void anUnresolvablePlaceholder() {
		assertStartUpFails(BadPlaceholder.class, "BadPlaceholder#pay", "no.such.property");
	}

	@Test
	void methodsNoProxyCanIntercept() {
		assertStartUpFails(PrivateMethod.class, "PrivateMethod#pay", "private");
		assertStartUpFails(FinalMethod.class, "FinalMethod#pay", "final");
		assertStartUpFails(StaticMethod.class, "StaticMethod#pay", "static");
	}

	private void assertStartUpFails(Class<?> beanClass, String method, String text) {
		this.runner.withUserConfiguration(BeanOf.class).withBean(beanClass).run((context) -> {
			assertThat(context).hasFailed();
			Throwable cause = context.getStartupFailure();
			while (cause != null && !(cause instanceof LockDefinitionException)) {
				cause = cause.getCause();
			}
			assertThat(cause).as("a LockDefinitionException in " + context.getStartupFailure())
				.isInstanceOf(LockDefinitionException.class)
				.hasMessageContaining(method)
				.hasMessageContaining(text);
		});
	}

	@Configuration(proxyBeanMethods = false)
	static class BeanOf {

		@Bean
		String marker() {
			return "marker";
		}

	}

}
