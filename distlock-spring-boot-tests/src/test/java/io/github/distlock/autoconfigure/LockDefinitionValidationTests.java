package io.github.distlock.autoconfigure;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Future;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.AliasFor;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import io.github.distlock.DistributedLock;
import io.github.distlock.DistributedLockConfig;
import io.github.distlock.LockAcquisitionException;
import io.github.distlock.LockDefinitionException;
import io.github.distlock.LockMode;
import io.github.distlock.interceptor.LockOperationSource;
import io.github.distlock.fixtures.redis.RedisExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Declarations that cannot work stop the application at start-up, naming {@code Class#method} and the text: bad
 * expressions and durations, methods no proxy reaches, two locks on one method, a lock on a type, and fallbacks
 * that are missing or do not fit (naming both methods).
 */
class LockDefinitionValidationTests {

	@RegisterExtension
	static final RedisExtension redis = RedisExtension.anyServer();

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class,
				RedisLockEngineAutoConfiguration.class, DistLockAutoConfiguration.class))
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

	@Retention(RetentionPolicy.RUNTIME)
	@Target({ ElementType.METHOD, ElementType.TYPE })
	@DistributedLock(name = "order")
	public @interface OrderLock {

		@AliasFor(annotation = DistributedLock.class, attribute = "key")
		String value();

	}

	@Retention(RetentionPolicy.RUNTIME)
	@Target(ElementType.METHOD)
	@DistributedLock(name = "audit", key = "'all'")
	public @interface AuditLock {

	}

	@Retention(RetentionPolicy.RUNTIME)
	@Target(ElementType.METHOD)
	@DistributedLock(name = "keyless")
	public @interface KeylessLock {

	}

	public static class DirectAndComposed {

		@DistributedLock(key = "#id")
		@OrderLock("#id")
		public void pay(String id) {
		}

	}

	public static class TwoComposed {

		@OrderLock("#id")
		@AuditLock
		public void pay(String id) {
		}

	}

	public static class ComposedWithoutKey {

		@KeylessLock
		public void pay(String id) {
		}

	}

	public static class KeyAndKeys {

		@DistributedLock(key = "#id", keys = { "#id", "#other" })
		public void pay(String id, String other) {
		}

	}

	public static class PermitsNotANumber {

		@DistributedLock(key = "#id", permits = "three")
		public void pay(String id) {
		}

	}

	public static class NoPermits {

		@DistributedLock(key = "#id", permits = "0")
		public void pay(String id) {
		}

	}

	public static class PermitsOnAReadLock {

		@DistributedLock(key = "#id", permits = "2", mode = LockMode.READ)
		public void pay(String id) {
		}

	}

	public static class BadKeysExpression {

		@DistributedLock(keys = { "#from", "#to." })
		public void transfer(String from, String to) {
		}

	}

	@OrderLock("#id")
	public static class LockOnType {

		public void pay(String id) {
		}

	}

	@DistributedLockConfig(lease = "ten seconds")
	public static class BadClassLease {

		@DistributedLock(key = "#id")
		public void pay(String id) {
		}

	}

	/** An override replaces the inherited lock: not two locks. */
	public static class OverridesALockedMethod extends DefaultLease {

		@Override
		@OrderLock("#id")
		public void pay(String id) {
		}

	}

	public static class MissingFallback {

		@DistributedLock(key = "#id", fallback = "payLater")
		public String pay(String id) {
			return id;
		}

	}

	public static class FallbackWithOtherParameters {

		@DistributedLock(key = "#id", fallback = "payLater")
		public String pay(String id) {
			return id;
		}

		public String payLater(long id) {
			return "later";
		}

	}

	public static class FallbackWithAnotherException {

		@DistributedLock(key = "#id", fallback = "payLater")
		public String pay(String id) {
			return id;
		}

		public String payLater(String id, IllegalStateException failure) {
			return "later";
		}

	}

	public static class FallbackWithOtherReturnType {

		@DistributedLock(key = "#id", fallback = "payLater")
		public String pay(String id) {
			return id;
		}

		public Integer payLater(String id) {
			return 0;
		}

	}

	public static class FallbackOfAVoidMethodReturningAValue {

		@DistributedLock(key = "#id", fallback = "payLater")
		public void pay(String id) {
		}

		public String payLater(String id) {
			return "later";
		}

	}

	public static class StageFallbackReturningAPlainValue {

		@DistributedLock(key = "#id", fallback = "payLater")
		public CompletionStage<String> pay(String id) {
			return CompletableFuture.completedStage(id);
		}

		public String payLater(String id) {
			return "later";
		}

	}

	public static class StageFallbackOfAnotherElementType {

		@DistributedLock(key = "#id", fallback = "payLater")
		public CompletionStage<String> pay(String id) {
			return CompletableFuture.completedStage(id);
		}

		public CompletableFuture<Integer> payLater(String id) {
			return CompletableFuture.completedFuture(0);
		}

	}

	public static class AmbiguousFallback {

		@DistributedLock(key = "#id", fallback = "payLater")
		public String pay(String id) {
			return id;
		}

		public String payLater(String id) {
			return "later";
		}

		public String payLater(String id, LockAcquisitionException failure) {
			return "later";
		}

	}

	public static class FallbackIsTheMethod {

		@DistributedLock(key = "#id", fallback = "pay")
		public String pay(String id) {
			return id;
		}

	}

	public static class LockedFallback {

		@DistributedLock(key = "#id", fallback = "payLater")
		public String pay(String id) {
			return id;
		}

		@DistributedLock(key = "#id", name = "later")
		public String payLater(String id) {
			return "later";
		}

	}

	public static class FittingFallbacks {

		@DistributedLock(key = "#id", fallback = "payLater")
		public String pay(String id) {
			return id;
		}

		private String payLater(String id) {
			return "later";
		}

		@DistributedLock(key = "#id", fallback = "refundLater")
		public Object refund(String id) {
			return id;
		}

		String refundLater(String id, Exception failure) {
			return "later";
		}

		@DistributedLock(key = "#id", fallback = "shipLater")
		public CompletionStage<String> ship(String id) {
			return CompletableFuture.completedStage(id);
		}

		public CompletableFuture<String> shipLater(String id, LockAcquisitionException failure) {
			return CompletableFuture.completedFuture("later");
		}

		@DistributedLock(key = "#p0", fallback = "countLater")
		public int count(List<String> ids) {
			return ids.size();
		}

		public int countLater(List<String> ids) {
			return 0;
		}

		@DistributedLock(key = "'all'", fallback = "${test.fallback:runLater}")
		public <T> T run(Callable<T> work) throws Exception {
			return work.call();
		}

		public <T> T runLater(Callable<T> work, Throwable failure) {
			return null;
		}

	}

	@Test
	void twoLocksOnOneMethod() {
		assertStartUpFails(DirectAndComposed.class, "DirectAndComposed#pay",
				"carries 2 locks (@DistributedLock, @DistributedLock through @OrderLock)");
		assertStartUpFails(TwoComposed.class, "TwoComposed#pay",
				"carries 2 locks (@DistributedLock through @OrderLock, @DistributedLock through @AuditLock)");
	}

	@Test
	void anOverrideReplacesTheInheritedLock() {
		this.runner.withUserConfiguration(BeanOf.class)
			.withBean(OverridesALockedMethod.class)
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context.getBean(LockOperationSource.class)
					.getOperation(OverridesALockedMethod.class.getMethod("pay", String.class),
							OverridesALockedMethod.class)
					.name()).isEqualTo("order");
			});
	}

	@Test
	void aComposedAnnotationThatGivesNoKey() {
		assertStartUpFails(ComposedWithoutKey.class, "ComposedWithoutKey#pay", "key must not be empty");
	}

	/**
	 * A bean that calls its own locked method runs it unlocked, since no proxy sees the call: start-up warns, naming
	 * both methods and the fix, whether the call is direct or a method reference; a bean that does not is not warned
	 * of.
	 */
	@Test
	@ExtendWith(OutputCaptureExtension.class)
	void aBeanCallingItsOwnLockedMethodIsWarnedOfAtStartUp(CapturedOutput output) {
		this.runner.withBean(Checkout.class).withBean(Payments.class).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(output).contains("Checkout#payAll calls its locked Checkout#pay")
				.contains("Checkout#payEach calls its locked Checkout#pay")
				.contains("runs unlocked")
				.doesNotContain("Payments#");
		});
	}

	public static class Checkout {

		@DistributedLock(key = "#id")
		public void pay(String id) {
		}

		public void payAll(List<String> ids) {
			for (String id : ids) {
				pay(id);
			}
		}

		public void payEach(List<String> ids) {
			ids.forEach(this::pay);
		}

	}

	/** Calls a locked method of another bean, through its proxy: nothing to warn of. */
	public static class Payments {

		@DistributedLock(key = "#id")
		public void refund(String id) {
		}

		public void refundTwice(Checkout checkout, String id) {
			checkout.pay(id);
			refund2(id);
		}

		private void refund2(String id) {
		}

	}

	@Test
	void aKeyThatNamesNoParameter() {
		assertStartUpFails(KeyNamingNoParameter.class, "KeyNamingNoParameter#pay",
				"refers to #orderId, which is not a parameter of the method (its parameters: id");
	}

	public static class KeyNamingNoParameter {

		@DistributedLock(key = "#orderId")
		public void pay(String id) {
		}

	}

	@Test
	void bothKeyAndKeys() {
		assertStartUpFails(KeyAndKeys.class, "KeyAndKeys#pay", "declare either key or keys, not both");
	}

	@Test
	void permitsThatAreNoPositiveNumberOrGoWithAReadWriteMode() {
		assertStartUpFails(PermitsNotANumber.class, "PermitsNotANumber#pay", "permits \"three\" is not a whole number");
		assertStartUpFails(NoPermits.class, "NoPermits#pay", "permits \"0\" must be at least 1");
		assertStartUpFails(PermitsOnAReadLock.class, "PermitsOnAReadLock#pay",
				"permits and mode = READ do not go together");
	}

	@Test
	void anInvalidExpressionAmongTheKeys() {
		assertStartUpFails(BadKeysExpression.class, "BadKeysExpression#transfer", "{#from, #to.}");
	}

	@Test
	void aLockOnAType() {
		assertStartUpFails(LockOnType.class, "LockOnType",
				"@DistributedLock (through @OrderLock) is on the type, where it locks no method");
	}

	@Test
	void anInvalidClassDefaultNamesTheMethodAndTheClass() {
		assertStartUpFails(BadClassLease.class, "BadClassLease#pay",
				"lease (from @DistributedLockConfig on BadClassLease) \"ten seconds\" is not a duration");
	}

	@Test
	void aMissingFallback() {
		assertStartUpFails(MissingFallback.class, "MissingFallback#pay",
				"its fallback MissingFallback#payLater does not exist; declare MissingFallback#payLater(String) or "
						+ "MissingFallback#payLater(String, LockAcquisitionException)");
	}

	@Test
	void aFallbackWithOtherParameters() {
		assertStartUpFails(FallbackWithOtherParameters.class, "FallbackWithOtherParameters#pay",
				"its fallback FallbackWithOtherParameters#payLater(long) does not take the parameters of "
						+ "FallbackWithOtherParameters#pay(String)");
		assertStartUpFails(FallbackWithAnotherException.class, "FallbackWithAnotherException#pay",
				"its fallback FallbackWithAnotherException#payLater(String, IllegalStateException) does not take "
						+ "the parameters of FallbackWithAnotherException#pay(String)");
	}

	@Test
	void aFallbackReturningWhatTheMethodCannot() {
		assertStartUpFails(FallbackWithOtherReturnType.class, "FallbackWithOtherReturnType#pay",
				"its fallback FallbackWithOtherReturnType#payLater(String) returns java.lang.Integer, which "
						+ "FallbackWithOtherReturnType#pay cannot return in place of its java.lang.String");
		assertStartUpFails(FallbackOfAVoidMethodReturningAValue.class, "FallbackOfAVoidMethodReturningAValue#pay",
				"returns java.lang.String, which FallbackOfAVoidMethodReturningAValue#pay cannot return in place of "
						+ "its void");
		assertStartUpFails(StageFallbackReturningAPlainValue.class, "StageFallbackReturningAPlainValue#pay",
				"returns java.lang.String, which StageFallbackReturningAPlainValue#pay cannot return in place of its "
						+ "java.util.concurrent.CompletionStage<java.lang.String>");
		assertStartUpFails(StageFallbackOfAnotherElementType.class, "StageFallbackOfAnotherElementType#pay",
				"returns java.util.concurrent.CompletableFuture<java.lang.Integer>, which "
						+ "StageFallbackOfAnotherElementType#pay cannot return in place of its "
						+ "java.util.concurrent.CompletionStage<java.lang.String>");
	}

	@Test
	void anAmbiguousFallback() {
		assertStartUpFails(AmbiguousFallback.class, "AmbiguousFallback#pay",
				"its fallback is ambiguous: AmbiguousFallback#payLater(String), "
						+ "AmbiguousFallback#payLater(String, LockAcquisitionException) fit");
	}

	@Test
	void aFallbackThatIsTheMethodOrCarriesALock() {
		assertStartUpFails(FallbackIsTheMethod.class, "FallbackIsTheMethod#pay",
				"its fallback FallbackIsTheMethod#pay is the locked method itself");
		assertStartUpFails(LockedFallback.class, "LockedFallback#pay",
				"its fallback LockedFallback#payLater(String) carries a lock of its own");
	}

	@Test
	void fittingFallbacksStart() {
		this.runner.withUserConfiguration(BeanOf.class)
			.withBean(FittingFallbacks.class)
			.run((context) -> assertThat(context).hasNotFailed().hasSingleBean(FittingFallbacks.class));
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

	/** Caught as the property is bound, before any method uses it ({@link PropertyValidationTests}). */
	@Test
	void aDefaultLeaseShorterThanAMillisecond() {
		this.runner.withPropertyValues("distlock.lease=500us")
			.withUserConfiguration(BeanOf.class)
			.withBean(DefaultLease.class)
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("distlock.lease must be at least 1ms"));
	}

	@Test
	void methodsWhoseWorkOutlivesTheCall() {
		assertStartUpFails(ReturnsCompletableFutureSubclass.class, "ReturnsCompletableFutureSubclass#pay",
				"returns OwnFuture");
		assertStartUpFails(ReturnsFuture.class, "ReturnsFuture#pay", "returns Future");
		assertStartUpFails(ReturnsPublisher.class, "ReturnsPublisher#pay", "returns Publisher (a reactive Publisher)");
	}

	@Test
	void methodsReturningAStageOrAReactorPublisherStart() {
		for (Class<?> beanClass : List.of(ReturnsCompletableFuture.class, ReturnsCompletionStage.class,
				ReturnsMono.class, ReturnsFlux.class)) {
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
		FailureAnalysis report = new LockDefinitionFailureAnalyzer().analyze(failure);
		assertThat(report).as("Spring Boot's report of " + failure).isNotNull();
		assertThat(report.getDescription()).contains(method).contains(text);
		assertThat(report.getAction()).contains(method);
	}

	@Configuration(proxyBeanMethods = false)
	static class BeanOf {

		@Bean
		String marker() {
			return "marker";
		}

	}

}
