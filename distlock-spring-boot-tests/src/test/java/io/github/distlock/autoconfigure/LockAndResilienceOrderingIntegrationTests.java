package io.github.distlock.autoconfigure;

import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import io.micrometer.common.KeyValue;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import org.aopalliance.aop.Advice;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.aop.Advisor;
import org.springframework.aop.framework.Advised;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationListener;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.resilience.InvocationRejectedException;
import org.springframework.resilience.annotation.ConcurrencyLimit;
import org.springframework.resilience.annotation.ConcurrencyLimit.ThrottlePolicy;
import org.springframework.resilience.annotation.EnableResilientMethods;
import org.springframework.resilience.annotation.Retryable;
import org.springframework.resilience.retry.MethodRetryEvent;
import org.springframework.scheduling.annotation.Async;
import org.springframework.scheduling.annotation.EnableAsync;

import io.github.distlock.DistributedLock;
import io.github.distlock.LockAcquisitionException;
import io.github.distlock.LockContext;
import io.github.distlock.fixtures.redis.RedisExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.SoftAssertions.assertSoftly;

/**
 * The lock and Spring Framework's resilience annotations on one method: one acquisition covers every
 * {@code @Retryable} attempt and sits outside {@code @ConcurrencyLimit}, while {@code @Async} stays outside the lock.
 * Two application instances share one redis-server.
 */
class LockAndResilienceOrderingIntegrationTests {

	@RegisterExtension
	static final RedisExtension redis = RedisExtension.anyServer();

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, DataRedisAutoConfiguration.class,
				RedisLockEngineAutoConfiguration.class, DistLockAutoConfiguration.class))
		.withUserConfiguration(Resilience.class)
		.withPropertyValues(redis.springProperties());

	@Configuration(proxyBeanMethods = false)
	@EnableResilientMethods
	@EnableAsync
	static class Resilience {

		@Bean
		FlakyService flakyService() {
			return new FlakyService();
		}

		@Bean
		AsyncFlakyService asyncFlakyService() {
			return new AsyncFlakyService();
		}

		@Bean
		BetweenAttempts betweenAttempts() {
			return new BetweenAttempts();
		}

		@Bean
		AcquisitionCounter acquisitionCounter() {
			return new AcquisitionCounter();
		}

		@Bean
		ObservationRegistry observationRegistry(AcquisitionCounter counter) {
			ObservationRegistry registry = ObservationRegistry.create();
			registry.observationConfig().observationHandler(counter);
			return registry;
		}

	}

	/** {@code @Async} applied before the resilience advice, so Spring puts the retries outside it. */
	@Configuration(proxyBeanMethods = false)
	@EnableResilientMethods
	@EnableAsync(order = Ordered.LOWEST_PRECEDENCE - 2)
	static class AsyncFirst {

		@Bean
		AsyncFlakyService asyncFlakyService() {
			return new AsyncFlakyService();
		}

	}

	public static class FlakyService {

		private final List<Long> tokens = new CopyOnWriteArrayList<>();

		/** Read through the proxy: a class-based proxy has no state of its own. */
		public List<Long> tokens() {
			return this.tokens;
		}

		/** Fails on its first two attempts, each time after noting the token of the lock it runs under. */
		@DistributedLock(key = "#id", name = "flaky")
		@Retryable(maxRetries = 2, delay = 20)
		@ConcurrencyLimit(1)
		public String failTwiceThenSucceed(String id) {
			this.tokens.add(LockContext.current().token());
			if (this.tokens.size() < 3) {
				throw new IllegalStateException("attempt " + this.tokens.size() + " fails");
			}
			return "succeeded on attempt " + this.tokens.size();
		}

		/** What another caller gets when it asks for the same lock without waiting. */
		@DistributedLock(key = "#id", name = "flaky", waitTime = "0s")
		public String takeNow(String id) {
			return "acquired";
		}

		@DistributedLock(key = "#id", name = "limited", waitTime = "0s")
		@ConcurrencyLimit(limit = 1, policy = ThrottlePolicy.REJECT)
		public <T> T limited(String id, Supplier<T> work) {
			return work.get();
		}

	}

	public static class AsyncFlakyService {

		private final List<String> attempts = new CopyOnWriteArrayList<>();

		public List<String> attempts() {
			return this.attempts;
		}

		@Async
		@DistributedLock(key = "#id", name = "async-flaky")
		@Retryable(maxRetries = 1, delay = 20)
		public CompletableFuture<String> failOnceThenSucceed(String id) {
			this.attempts.add(Thread.currentThread().getName() + " token " + LockContext.current().token()
					+ " held " + RedisKeys.exists(redis, "distlock:{async-flaky:" + id + "}"));
			if (this.attempts.size() < 2) {
				throw new IllegalStateException("first attempt fails");
			}
			return CompletableFuture.completedFuture("done");
		}

	}

	/** Runs a probe each time {@code @Retryable} reports a failed attempt: after it, before the next one. */
	static class BetweenAttempts implements ApplicationListener<MethodRetryEvent> {

		private volatile Runnable probe = () -> {
		};

		void probe(Runnable probe) {
			this.probe = probe;
		}

		@Override
		public void onApplicationEvent(MethodRetryEvent event) {
			this.probe.run();
		}

	}

	/** Counts acquisitions through the {@code distlock.acquire} observation. */
	static class AcquisitionCounter implements ObservationHandler<Observation.Context> {

		final AtomicInteger acquired = new AtomicInteger();

		@Override
		public boolean supportsContext(Observation.Context context) {
			return "distlock.acquire".equals(context.getName());
		}

		@Override
		public void onStop(Observation.Context context) {
			KeyValue outcome = context.getLowCardinalityKeyValue("outcome");
			if (outcome != null && "acquired".equals(outcome.getValue())) {
				this.acquired.incrementAndGet();
			}
		}

	}

	private static String takeNow(FlakyService otherInstance) {
		try {
			return otherInstance.takeNow("f");
		}
		catch (LockAcquisitionException ex) {
			return "refused";
		}
	}

	private static List<String> adviceOrder(Object proxy) {
		return Arrays.stream(((Advised) proxy).getAdvisors())
			.map(Advisor::getAdvice)
			.map(Advice::getClass)
			.map(Class::getSimpleName)
			.toList();
	}

	@Test
	void everyRetryRunsUnderOneAcquisitionOfTheLock() {
		this.runner.run((first) -> this.runner.run((second) -> {
			FlakyService service = first.getBean(FlakyService.class);
			FlakyService otherInstance = second.getBean(FlakyService.class);
			List<String> betweenAttempts = new CopyOnWriteArrayList<>();
			first.getBean(BetweenAttempts.class)
				.probe(() -> betweenAttempts.add("held " + RedisKeys.exists(redis, "distlock:{flaky:f}") + ", other "
						+ takeNow(otherInstance)));
			String result = service.failTwiceThenSucceed("f");
			assertSoftly((softly) -> {
				softly.assertThat(result).isEqualTo("succeeded on attempt 3");
				softly.assertThat(service.tokens()).as("tokens seen by the attempts")
					.hasSize(3)
					.containsOnly(service.tokens().get(0));
				softly.assertThat(betweenAttempts).as("between attempts")
					.containsExactly("held true, other refused", "held true, other refused");
				softly.assertThat(first.getBean(AcquisitionCounter.class).acquired).as("acquisitions").hasValue(1);
			});
			assertThat(RedisKeys.locks(redis)).as("released after the last attempt").isEmpty();
		}));
	}

	@Test
	void theLockIsOutsideTheConcurrencyLimit() {
		this.runner.run((context) -> {
			FlakyService service = context.getBean(FlakyService.class);
			String secondCaller = service.limited("l", () -> {
				try {
					return CompletableFuture.supplyAsync(() -> service.limited("l", () -> "entered"))
						.handle((result, ex) -> (ex != null) ? ex.getCause().getClass().getSimpleName() : result)
						.get(10, TimeUnit.SECONDS);
				}
				catch (Exception ex) {
					throw new IllegalStateException(ex);
				}
			});
			assertThat(secondCaller).as("turned away by the lock before it reaches the limit")
				.isEqualTo(LockAcquisitionException.class.getSimpleName())
				.isNotEqualTo(InvocationRejectedException.class.getSimpleName());
			assertThat(RedisKeys.locks(redis)).isEmpty();
		});
	}

	@Test
	void asyncStaysOutsideTheLockAndTheRetriesInsideIt() {
		this.runner.run((context) -> {
			AsyncFlakyService service = context.getBean(AsyncFlakyService.class);
			assertThat(service.failOnceThenSucceed("a").get(10, TimeUnit.SECONDS)).isEqualTo("done");
			assertThat(service.attempts()).hasSize(2);
			String firstAttempt = service.attempts().get(0);
			assertThat(firstAttempt).doesNotStartWith(Thread.currentThread().getName()).endsWith(" held true");
			assertThat(service.attempts()).containsOnly(firstAttempt);
			assertThat(context.getBean(AcquisitionCounter.class).acquired).hasValue(1);
			assertThat(RedisKeys.locks(redis)).isEmpty();
			assertThat(adviceOrder(service)).containsExactly("AnnotationAsyncExecutionInterceptor", "LockInterceptor",
					"RetryAnnotationInterceptor");
		});
	}

	@Test
	void theLockSitsJustOutsideTheResilienceAdvice() {
		this.runner.run((context) -> assertThat(adviceOrder(context.getBean(FlakyService.class)))
			.containsExactly("LockInterceptor", "ConcurrencyLimitInterceptor", "RetryAnnotationInterceptor"));
	}

	@Test
	void theLockIsNeverMovedOutsideAsyncEvenWhenTheRetriesAre() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, DataRedisAutoConfiguration.class,
					RedisLockEngineAutoConfiguration.class, DistLockAutoConfiguration.class))
			.withUserConfiguration(AsyncFirst.class)
			.withPropertyValues(redis.springProperties())
			.run((context) -> assertThat(adviceOrder(context.getBean(AsyncFlakyService.class))).containsExactly(
					"RetryAnnotationInterceptor", "AnnotationAsyncExecutionInterceptor", "LockInterceptor"));
	}

}
