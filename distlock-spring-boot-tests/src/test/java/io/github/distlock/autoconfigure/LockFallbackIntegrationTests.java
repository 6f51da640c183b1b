package io.github.distlock.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.NoUniqueBeanDefinitionException;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import io.github.distlock.DistributedLock;
import io.github.distlock.LockAcquisitionException;
import io.github.distlock.LockFailureHandler;
import io.github.distlock.LockLostException;
import io.github.distlock.fixtures.redis.RedisExtension;
import io.github.distlock.fixtures.redis.RespClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Fallback methods and the {@link LockFailureHandler}: what a caller receives when another application instance
 * holds the lock, on a real redis-server with two application contexts. The first context holds the lock while the
 * same thread calls the second, which is another holder, so "busy" needs no timing.
 */
class LockFallbackIntegrationTests {

	@RegisterExtension
	static final RedisExtension redis = RedisExtension.anyServer();

	private final ApplicationContextRunner runner = LockContexts.onRedis(redis)
		.withUserConfiguration(Services.class);

	public static class StockService {

		private final AtomicInteger runs = new AtomicInteger();

		private final AtomicInteger fallbacks = new AtomicInteger();

		private final List<Exception> failures = new CopyOnWriteArrayList<>();

		/** Calls of locked methods that ran; methods, as a proxy's own fields are not the bean's. */
		public int runs() {
			return this.runs.get();
		}

		public int fallbacks() {
			return this.fallbacks.get();
		}

		public List<Exception> failures() {
			return this.failures;
		}

		@DistributedLock(name = "stock", key = "#sku")
		public <T> T hold(String sku, Callable<T> work) throws Exception {
			return work.call();
		}

		@DistributedLock(name = "stock", key = "#sku", waitTime = "0s", fallback = "reserveLater")
		public String reserve(String sku) {
			this.runs.incrementAndGet();
			return "reserved " + sku;
		}

		String reserveLater(String sku) {
			this.fallbacks.incrementAndGet();
			return "queued " + sku;
		}

		@DistributedLock(name = "stock", key = "#sku", waitTime = "300ms", fallback = "cancelLater")
		public String cancel(String sku, int quantity) {
			this.runs.incrementAndGet();
			return "cancelled " + quantity;
		}

		private String cancelLater(String sku, int quantity, LockAcquisitionException failure) {
			this.fallbacks.incrementAndGet();
			this.failures.add(failure);
			return "cancel " + quantity + " later";
		}

		@DistributedLock(name = "stock", key = "#sku", waitTime = "0s", fallback = "countLater")
		public int count(String sku) {
			this.runs.incrementAndGet();
			return 1;
		}

		public int countLater(String sku, Exception failure) {
			this.fallbacks.incrementAndGet();
			this.failures.add(failure);
			return -1;
		}

		@DistributedLock(name = "stock", key = "#sku", waitTime = "0s", fallback = "shipLater")
		public CompletableFuture<String> ship(String sku, CompletableFuture<String> work) {
			this.runs.incrementAndGet();
			return work;
		}

		public CompletableFuture<String> shipLater(String sku, CompletableFuture<String> work) {
			this.fallbacks.incrementAndGet();
			return CompletableFuture.completedFuture("ship " + sku + " later");
		}

		@DistributedLock(name = "stock", key = "#sku", waitTime = "0s", fallback = "failLater")
		public String failing(String sku) {
			this.runs.incrementAndGet();
			return "ran";
		}

		public String failLater(String sku) {
			this.fallbacks.incrementAndGet();
			throw new IllegalStateException("no way to do " + sku + " later either");
		}

		/** Runs work that may meet a busy lock of its own, which is not this method's lock being busy. */
		@DistributedLock(name = "outer", key = "#sku", waitTime = "0s", fallback = "nestedLater")
		public String nested(String sku, Callable<String> work) throws Exception {
			this.runs.incrementAndGet();
			return work.call();
		}

		public String nestedLater(String sku, Callable<String> work) {
			this.fallbacks.incrementAndGet();
			return "fallback";
		}

		@DistributedLock(name = "lost", key = "#sku", fallback = "loseLater")
		public String lose(String sku) {
			this.runs.incrementAndGet();
			try (RespClient client = redis.client()) {
				assertThat(client.call("DEL", "distlock:{lost:" + sku + "}")).isEqualTo(1L);
			}
			return "done";
		}

		public String loseLater(String sku) {
			this.fallbacks.incrementAndGet();
			return "fallback";
		}

		@DistributedLock(name = "stock", key = "#sku", waitTime = "0s")
		public String plain(String sku) {
			this.runs.incrementAndGet();
			return "ran";
		}

		@DistributedLock(name = "stock", key = "#sku", waitTime = "0s")
		public int plainCount(String sku) {
			this.runs.incrementAndGet();
			return 1;
		}

		@DistributedLock(name = "stock", key = "#sku", waitTime = "0s")
		public String failingWithoutFallback(String sku) {
			this.runs.incrementAndGet();
			return "ran";
		}

		@DistributedLock(name = "stock", key = "#sku", waitTime = "0s")
		public void plainVoid(String sku) {
			this.runs.incrementAndGet();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class Services {

		@Bean
		StockService stockService() {
			return new StockService();
		}

	}

	/** Records its calls; answers "plain" with a value, "plainCount" with one of the wrong type, others by throwing. */
	static final class RecordingHandler implements LockFailureHandler {

		final List<String> calls = new CopyOnWriteArrayList<>();

		@Override
		public Object handleNotAcquired(LockAcquisitionException failure, java.lang.reflect.Method method,
				Object[] args) {
			this.calls.add(method.getName() + "(" + args[0] + ") " + failure.getLockName() + ":" + failure.getLockKey());
			return switch (method.getName()) {
				case "plain" -> "handled " + args[0];
				case "plainCount" -> "not a number";
				case "plainVoid" -> "ignored";
				default -> throw new IllegalArgumentException("busy: " + failure.getLockKey(), failure);
			};
		}

		@Override
		public String toString() {
			return "RecordingHandler";
		}

	}

	@Test
	void theFallbackAnswersEachCallWhileAnotherInstanceHoldsTheLock() {
		this.runner.run((first) -> this.runner.run((second) -> {
			StockService holder = first.getBean(StockService.class);
			StockService other = second.getBean(StockService.class);
			List<String> answers = holder.hold("sku-1", () -> List.of(other.reserve("sku-1"), other.reserve("sku-1"),
					other.reserve("sku-2")));
			assertThat(answers).containsExactly("queued sku-1", "queued sku-1", "reserved sku-2");
			assertThat(other.fallbacks()).isEqualTo(2);
			assertThat(other.runs()).as("only the free lock's call ran").isEqualTo(1);
			assertThat(other.reserve("sku-1")).as("once released, the method runs").isEqualTo("reserved sku-1");
			assertThat(other.fallbacks()).isEqualTo(2);
			assertThat(other.runs()).isEqualTo(2);
			assertThat(RedisKeys.locks(redis)).isEmpty();
		}));
	}

	@Test
	void aFallbackTakingTheExceptionReceivesTheFailureAfterTheWait() {
		this.runner.run((first) -> this.runner.run((second) -> {
			StockService holder = first.getBean(StockService.class);
			StockService other = second.getBean(StockService.class);
			assertThat(holder.hold("sku-1", () -> other.cancel("sku-1", 3))).isEqualTo("cancel 3 later");
			assertThat(other.runs()).isZero();
			assertThat(other.fallbacks()).isEqualTo(1);
			assertThat(other.failures()).singleElement().isInstanceOfSatisfying(LockAcquisitionException.class,
					(failure) -> {
						assertThat(failure.getLockName()).isEqualTo("stock");
						assertThat(failure.getLockKey()).isEqualTo("sku-1");
						assertThat(failure.getWaited()).isGreaterThanOrEqualTo(Duration.ofMillis(300));
						assertThat(failure.isStoreUnavailable()).isFalse();
					});
		}));
	}

	@Test
	void aFallbackMayTakeASupertypeOfTheExceptionAndReturnAPrimitive() {
		this.runner.run((first) -> this.runner.run((second) -> {
			StockService other = second.getBean(StockService.class);
			assertThat(first.getBean(StockService.class).hold("sku-1", () -> other.count("sku-1"))).isEqualTo(-1);
			assertThat(other.failures()).singleElement().isInstanceOf(LockAcquisitionException.class);
			assertThat(other.runs()).isZero();
			assertThat(other.count("sku-1")).isEqualTo(1);
		}));
	}

	@Test
	void theFallbackOfAStageMethodReturnsAStage() {
		this.runner.run((first) -> this.runner.run((second) -> {
			StockService other = second.getBean(StockService.class);
			CompletableFuture<String> work = new CompletableFuture<>();
			CompletableFuture<String> answer = first.getBean(StockService.class)
				.hold("sku-1", () -> other.ship("sku-1", work));
			assertThat(answer.get(10, TimeUnit.SECONDS)).isEqualTo("ship sku-1 later");
			assertThat(work).as("the method's own stage was never used").isNotDone();
			assertThat(other.runs()).isZero();
			assertThat(other.fallbacks()).isEqualTo(1);
			assertThat(RedisKeys.locks(redis)).isEmpty();
		}));
	}

	@Test
	void theFallbacksExceptionReachesTheCaller() {
		this.runner.run((first) -> this.runner.run((second) -> {
			StockService other = second.getBean(StockService.class);
			assertThatExceptionOfType(IllegalStateException.class)
				.isThrownBy(() -> first.getBean(StockService.class).hold("sku-1", () -> other.failing("sku-1")))
				.withMessage("no way to do sku-1 later either");
			assertThat(other.fallbacks()).isEqualTo(1);
			assertThat(other.runs()).isZero();
		}));
	}

	@Test
	void aBusyLockTheMethodMeetsItselfIsNotItsFallbacksBusiness() {
		this.runner.run((first) -> this.runner.run((second) -> {
			StockService holder = first.getBean(StockService.class);
			StockService other = second.getBean(StockService.class);
			assertThatExceptionOfType(LockAcquisitionException.class)
				.isThrownBy(() -> holder.hold("sku-1", () -> other.nested("sku-1", () -> other.plain("sku-1"))))
				.satisfies((ex) -> assertThat(ex.getLockName()).isEqualTo("stock"));
			assertThat(other.runs()).as("nested ran, plain did not").isEqualTo(1);
			assertThat(other.fallbacks()).isZero();
			assertThat(RedisKeys.locks(redis)).isEmpty();
		}));
	}

	@Test
	void aLostLockKeepsItsOnLostPolicyAndNeverCallsTheFallback() {
		this.runner.run((context) -> {
			StockService service = context.getBean(StockService.class);
			assertThatExceptionOfType(LockLostException.class).isThrownBy(() -> service.lose("sku-1"))
				.satisfies((ex) -> assertThat(ex.getLockName()).isEqualTo("lost"));
			assertThat(service.runs()).isEqualTo(1);
			assertThat(service.fallbacks()).isZero();
			assertThat(RedisKeys.locks(redis)).isEmpty();
		});
	}

	@Test
	void withoutFallbackOrHandlerTheCallerGetsTheException() {
		this.runner.run((first) -> this.runner.run((second) -> {
			StockService other = second.getBean(StockService.class);
			assertThatExceptionOfType(LockAcquisitionException.class)
				.isThrownBy(() -> first.getBean(StockService.class).hold("sku-1", () -> other.plain("sku-1")))
				.satisfies((ex) -> assertThat(ex.getLockKey()).isEqualTo("sku-1"));
			assertThat(other.runs()).isZero();
		}));
	}

	@Test
	void theFailureHandlerAnswersMethodsWithoutFallback() {
		RecordingHandler handler = new RecordingHandler();
		this.runner.run((first) -> this.runner.withBean(LockFailureHandler.class, () -> handler).run((second) -> {
			StockService holder = first.getBean(StockService.class);
			StockService other = second.getBean(StockService.class);
			List<Object> answers = holder.hold("sku-1", () -> {
				List<Object> seen = new ArrayList<>();
				seen.add(other.plain("sku-1"));
				seen.add(other.plain("sku-1"));
				other.plainVoid("sku-1");
				seen.add(other.reserve("sku-1"));
				return seen;
			});
			assertThat(answers).containsExactly("handled sku-1", "handled sku-1", "queued sku-1");
			assertThat(handler.calls).as("not for the method with a fallback")
				.containsExactly("plain(sku-1) stock:sku-1", "plain(sku-1) stock:sku-1", "plainVoid(sku-1) stock:sku-1");
			assertThat(other.runs()).isZero();
			assertThat(other.fallbacks()).isEqualTo(1);
		}));
	}

	@Test
	void twoFailureHandlersWithoutAPrimaryOneFailStartUp() {
		this.runner.withBean("oneHandler", LockFailureHandler.class, RecordingHandler::new)
			.withBean("otherHandler", LockFailureHandler.class, RecordingHandler::new)
			.run((context) -> assertThat(context).getFailure()
				.isInstanceOf(NoUniqueBeanDefinitionException.class)
				.hasMessageContaining("oneHandler")
				.hasMessageContaining("otherHandler"));
	}

	@Test
	void whatTheFailureHandlerThrowsOrReturnsWronglyReachesTheCaller() {
		RecordingHandler handler = new RecordingHandler();
		this.runner.run((first) -> this.runner.withBean(LockFailureHandler.class, () -> handler).run((second) -> {
			StockService holder = first.getBean(StockService.class);
			StockService other = second.getBean(StockService.class);
			assertThatExceptionOfType(IllegalStateException.class)
				.isThrownBy(() -> holder.hold("sku-1", () -> other.plainCount("sku-1")))
				.withMessageContaining("LockFailureHandler RecordingHandler returned a java.lang.String for "
						+ "StockService#plainCount, which returns int")
				.withCauseInstanceOf(LockAcquisitionException.class);
			assertThatExceptionOfType(IllegalArgumentException.class)
				.isThrownBy(() -> holder.hold("sku-1", () -> other.failingWithoutFallback("sku-1")))
				.withMessage("busy: sku-1");
			assertThat(handler.calls).hasSize(2);
			assertThat(other.runs()).isZero();
		}));
	}

}
