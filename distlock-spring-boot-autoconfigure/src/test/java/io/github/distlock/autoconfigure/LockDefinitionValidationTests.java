package io.github.distlock.autoconfigure;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Future;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

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
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RedisLockEngineAutoConfiguration.class, DistLockAutoConfiguration.class))
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

	public static class SubMillisecondLease {

		@DistributedLock(key = "#id", lease = "500us")
		public void pay(String id) {
		}

	}

	public static class SubMillisecondMaxLease {

		@DistributedLock(key = "#id", maxLease = "999us")
		public void pay(String id) {
		}

	}

	public static class DefaultLease {

		@DistributedLock(key = "#id")
		public void pay(String id) {
		}

	}

	public static class ReturnsCompletableFuture {

		@DistributedLock(key = "#id")
		public CompletableFuture<String> pay(String id) {
			return CompletableFuture.supplyAsync(() -> id);
		}

	}

	public static class ReturnsCompletionStage {

		@DistributedLock(key = "#id")
		public CompletionStage<String> pay(String id) {
			return CompletableFuture.completedStage(id);
		}

	}

	/** A future type of its own: the stage handed back in its place would not be one. */
	public static class OwnFuture<T> extends CompletableFuture<T> {

	}

	public static class ReturnsCompletableFutureSubclass {

		@DistributedLock(key = "#id")
		public OwnFuture<String> pay(String id) {
			return new OwnFuture<>();
		}

	}

	public static class ReturnsFuture {

		@DistributedLock(key = "#id")
		public Future<String> pay(String id) {
			return CompletableFuture.completedFuture(id);
		}

	}

	public static class ReturnsMono {

		@DistributedLock(key = "#id")
		public Mono<String> pay(String id) {
			return Mono.just(id);
		}

	}

	public static class ReturnsFlux {

		@DistributedLock(key = "#id")
		public Flux<String> pay(String id) {
			return Flux.just(id);
		}

	}

	public static class ReturnsPublisher {

		@DistributedLock(key = "#id")
		public Publisher<String> pay(String id) {
			return Mono.just(id);
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
		assertStartUpFails(ZeroLease.class, "ZeroLease#pay", "\"0s\" must be at least 1ms");
	}

	@Test
	void aLeaseShorterThanTheMillisecondRedisCounts() {
		assertStartUpFails(SubMillisecondLease.class, "SubMillisecondLease#pay", "\"500us\" must be at least 1ms");
		assertStartUpFails(SubMillisecondMaxLease.class, "SubMillisecondMaxLease#pay",
				"\"999us\" must be at least 1ms");
	}

	@Test
	void aDefaultLeaseShorterThanAMillisecond() {
		this.runner.withPropertyValues("distlock.lease=500us")
			.withUserConfiguration(BeanOf.class)
			.withBean(DefaultLease.class)
			.run((context) -> assertDefinitionFailure(context.getStartupFailure(), "DefaultLease#pay",
					"must be at least 1ms"));
	}

	@Test
	void methodsWhoseWorkOutlivesTheCall() {
		assertStartUpFails(ReturnsCompletableFutureSubclass.class, "ReturnsCompletableFutureSubclass#pay",
				"returns OwnFuture");
		assertStartUpFails(ReturnsFuture.class, "ReturnsFuture#pay", "returns Future");
		assertStartUpFails(ReturnsMono.class, "ReturnsMono#pay", "returns Mono (a reactive Publisher)");
		assertStartUpFails(ReturnsFlux.class, "ReturnsFlux#pay", "returns Flux (a reactive Publisher)");
		assertStartUpFails(ReturnsPublisher.class, "ReturnsPublisher#pay", "returns Publisher (a reactive Publisher)");
	}

	@Test
	void methodsReturningAStageStart() {
		for (Class<?> beanClass : List.of(ReturnsCompletableFuture.class, ReturnsCompletionStage.class)) {
			this.runner.withUserConfiguration(BeanOf.class)
				.withBean(beanClass)
				.run((context) -> assertThat(context).hasNotFailed().hasSingleBean(beanClass));
		}
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
		this.runner.withUserConfiguration(BeanOf.class)
			.withBean(beanClass)
			.run((context) -> assertDefinitionFailure(context.getStartupFailure(), method, text));
	}

	private static void assertDefinitionFailure(Throwable failure, String method, String text) {
		Throwable cause = failure;
		while (cause != null && !(cause instanceof LockDefinitionException)) {
			cause = cause.getCause();
		}
		assertThat(cause).as("a LockDefinitionException in " + failure)
			.isInstanceOf(LockDefinitionException.class)
			.hasMessageContaining(method)
			.hasMessageContaining(text);
	}

	@Configuration(proxyBeanMethods = false)
	static class BeanOf {

		@Bean
		String marker() {
			return "marker";
		}

	}

}
