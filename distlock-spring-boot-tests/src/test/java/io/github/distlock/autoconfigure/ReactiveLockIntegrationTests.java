package io.github.distlock.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.aop.framework.AopProxyUtils;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

import io.github.distlock.DistributedLock;
import io.github.distlock.LockAcquisitionException;
import io.github.distlock.LockContext;
import io.github.distlock.LockLostException;
import io.github.distlock.LockLostListener;
import io.github.distlock.LockReentryException;
import io.github.distlock.LostLock;
import io.github.distlock.OnLost;
import io.github.distlock.ReactiveLockContext;
import io.github.distlock.fixtures.redis.RedisExtension;
import io.github.distlock.fixtures.redis.RespClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * {@code @DistributedLock} methods that return a Reactor {@link Mono} or {@link Flux} hold the lock per subscription
 * until the publisher terminates, on a real redis-server with two application instances. The work is a sink or a
 * future the test completes itself, so "while the work runs" is exact.
 */
class ReactiveLockIntegrationTests {

	@RegisterExtension
	static final RedisExtension redis = RedisExtension.anyServer();

	private static final String LOCK = "distlock:{reactive:1}";

	private static final long LEASE_MILLIS = 600;

	static final BlockingQueue<LostLock> losses = new LinkedBlockingQueue<>();

	private final ApplicationContextRunner runner = LockContexts.onRedis(redis)
		.withUserConfiguration(Beans.class);

	@BeforeEach
	void setUp() {
		losses.clear();
	}

	@AfterEach
	void noLockOutlivesItsTest() {
		assertThat(RedisKeys.removeLeftOver(redis)).as("lock keys left by the test").isEmpty();
	}

	@Configuration(proxyBeanMethods = false)
	static class Beans {

		@Bean
		ReactiveService reactiveService() {
			return new ReactiveService();
		}

		@Bean
		LockLostListener recordingListener() {
			return losses::add;
		}

	}

	public static class ReactiveService {

		/** Counts the method's invocations, each of which happens inside the lock, on subscription. */
		final AtomicInteger invocations = new AtomicInteger();

		/** The threads the method was invoked on. */
		final Set<String> invokedOn = ConcurrentHashMap.newKeySet();

		@DistributedLock(key = "#id", name = "reactive")
		public Mono<String> mono(String id, Mono<String> work) {
			this.invocations.incrementAndGet();
			this.invokedOn.add(Thread.currentThread().getName());
			return work;
		}

		@DistributedLock(key = "#id", name = "reactive", waitTime = "30s")
		public Mono<String> patient(String id, Mono<String> work) {
			this.invocations.incrementAndGet();
			return work;
		}

		@DistributedLock(key = "#id", name = "reactive")
		public Flux<String> flux(String id, Flux<String> work) {
			return work;
		}

		@DistributedLock(key = "#id", name = "reactive", lease = "600ms")
		public Mono<String> rollbackOnLoss(String id, Mono<String> work) {
			return work;
		}

		@DistributedLock(key = "#id", name = "reactive", lease = "600ms", onLost = OnLost.INTERRUPT)
		public Flux<String> interruptOnLoss(String id, Flux<String> work) {
			return work;
		}

		@DistributedLock(key = "#id", name = "reactive", lease = "600ms", onLost = OnLost.IGNORE)
		public Mono<String> ignoreLoss(String id, Mono<String> work) {
			return work;
		}

		/** The token seen while the method assembles its publisher and the one its pipeline carries. */
		@DistributedLock(key = "#id", name = "reactive")
		public Mono<List<Long>> tokens(String id) {
			long assembled = LockContext.current().token();
			return ReactiveLockContext.current().map((lock) -> List.of(assembled, lock.token()));
		}

		@DistributedLock(key = "#id", name = "reactive", waitTime = "0s")
		public Mono<Long> tryNow(String id) {
			return ReactiveLockContext.current().map(LockContext::token);
		}

		@DistributedLock(key = "#id", name = "reactive", waitTime = "0s", reentrant = false)
		public Mono<Long> neverNested(String id) {
			return ReactiveLockContext.current().map(LockContext::token);
		}

		/** Calls a locked method for the same lock inside its own pipeline, on another thread. */
		@DistributedLock(key = "#id", name = "reactive")
		public Mono<List<Long>> outerThenInner(String id, boolean reentrant) {
			return ReactiveLockContext.current()
				.publishOn(Schedulers.boundedElastic())
				.flatMap((outer) -> (reentrant ? tryNowThroughProxy(id) : neverNestedThroughProxy(id))
					.map((inner) -> List.of(outer.token(), inner)));
		}

		/** A blocking method that subscribes to a locked publisher for its own lock on its own thread. */
		@DistributedLock(key = "#id", name = "reactive")
		public long blockingOuter(String id) {
			return self.tryNow(id).block(Duration.ofSeconds(10)) - LockContext.current().token();
		}

		@DistributedLock(key = "#id", name = "reactive", waitTime = "0s", fallback = "busy")
		public Mono<String> withFallback(String id) {
			return Mono.just("locked");
		}

		public Mono<String> busy(String id) {
			return Mono.just("busy " + id);
		}

		@DistributedLock(key = "#id", name = "reactive", waitTime = "10s")
		public Mono<Integer> exclusive(String id, AtomicInteger inside, AtomicInteger maximum, AtomicInteger count) {
			return Mono.fromCallable(() -> {
				maximum.accumulateAndGet(inside.incrementAndGet(), Math::max);
				return count.get();
			}).delayElement(Duration.ofMillis(2)).map((seen) -> {
				count.set(seen + 1);
				inside.decrementAndGet();
				return seen;
			});
		}

		ReactiveService self;

		private Mono<Long> tryNowThroughProxy(String id) {
			return this.self.tryNow(id);
		}

		private Mono<Long> neverNestedThroughProxy(String id) {
			return this.self.neverNested(id);
		}

	}

	private static ReactiveService service(ApplicationContext context) {
		ReactiveService service = context.getBean(ReactiveService.class);
		// The bean calls itself through its proxy, as an application would through an injected reference.
		target(service).self = service;
		return service;
	}

	/** The bean behind the proxy, whose fields the method writes. */
	private static ReactiveService target(ReactiveService proxy) {
		return (ReactiveService) AopProxyUtils.getSingletonTarget(proxy);
	}

	private static String tryNow(ReactiveService service) {
		try {
			service.tryNow("1").block(Duration.ofSeconds(10));
			return "acquired";
		}
		catch (LockAcquisitionException ex) {
			return "refused";
		}
	}

	@Test
	void nothingIsLockedUntilSubscriptionAndTheMonosValueArrivesAfterTheRelease() {
		this.runner.run((first) -> this.runner.run((second) -> {
			ReactiveService service = service(first);
			ReactiveService otherInstance = service(second);
			CompletableFuture<String> work = new CompletableFuture<>();
			Mono<String> locked = service.mono("1", Mono.fromFuture(work))
				.map((value) -> value + ", held " + RedisKeys.exists(redis, LOCK));
			assertThat(target(service).invocations).as("the method runs on subscription").hasValue(0);
			assertThat(RedisKeys.exists(redis, LOCK)).isFalse();
			CompletableFuture<String> result = locked.toFuture();
			await().atMost(Duration.ofSeconds(10)).until(() -> target(service).invocations.get() == 1);
			assertThat(RedisKeys.exists(redis, LOCK)).isTrue();
			assertThat(tryNow(otherInstance)).isEqualTo("refused");
			work.complete("done");
			assertThat(result.get(10, TimeUnit.SECONDS)).isEqualTo("done, held false");
			assertThat(tryNow(otherInstance)).isEqualTo("acquired");
			assertThat(target(service).invokedOn).as("acquired off the subscribing thread")
				.allSatisfy((thread) -> assertThat(thread).startsWith("distlock-acquire"));
		}));
	}

	@Test
	void aFluxHoldsTheLockWhileItEmitsAndReleasesItBeforeItCompletes() {
		this.runner.run((first) -> this.runner.run((second) -> {
			ReactiveService otherInstance = service(second);
			Sinks.Many<String> work = Sinks.many().unicast().onBackpressureBuffer();
			BlockingQueue<String> seen = new LinkedBlockingQueue<>();
			CompletableFuture<Boolean> heldAtCompletion = service(first).flux("1", work.asFlux())
				.doOnNext(seen::add)
				.then(Mono.fromCallable(() -> RedisKeys.exists(redis, LOCK)))
				.toFuture();
			await().atMost(Duration.ofSeconds(10)).until(() -> RedisKeys.exists(redis, LOCK));
			work.tryEmitNext("a");
			assertThat(seen.poll(10, TimeUnit.SECONDS)).isEqualTo("a");
			assertThat(tryNow(otherInstance)).isEqualTo("refused");
			work.tryEmitNext("b");
			assertThat(seen.poll(10, TimeUnit.SECONDS)).isEqualTo("b");
			work.tryEmitComplete();
			assertThat(heldAtCompletion.get(10, TimeUnit.SECONDS)).isFalse();
			assertThat(tryNow(otherInstance)).isEqualTo("acquired");
		}));
	}

	@Test
	void anErrorReleasesTheLockAndReachesTheSubscriberUnchanged() {
		this.runner.run((first) -> this.runner.run((second) -> {
			IllegalStateException failure = new IllegalStateException("payment declined");
			CompletableFuture<String> work = new CompletableFuture<>();
			CompletableFuture<String> result = service(first).mono("1", Mono.fromFuture(work)).toFuture();
			await().atMost(Duration.ofSeconds(10)).until(() -> RedisKeys.exists(redis, LOCK));
			assertThat(tryNow(service(second))).isEqualTo("refused");
			work.completeExceptionally(failure);
			assertThat(result).failsWithin(Duration.ofSeconds(10)).withThrowableThat().havingCause().isSameAs(failure);
			assertThat(failure.getSuppressed()).isEmpty();
			assertThat(RedisKeys.exists(redis, LOCK)).isFalse();
			assertThat(tryNow(service(second))).isEqualTo("acquired");
		}));
	}

	@Test
	void cancellingTheSubscriptionReleasesTheLock() {
		this.runner.run((first) -> this.runner.run((second) -> {
			AtomicInteger cancelled = new AtomicInteger();
			CountDownLatch working = new CountDownLatch(1);
			Disposable subscription = service(first)
				.flux("1", Flux.<String>never().doOnSubscribe((s) -> working.countDown()).doOnCancel(cancelled::incrementAndGet))
				.subscribe();
			assertThat(working.await(10, TimeUnit.SECONDS)).isTrue();
			assertThat(RedisKeys.exists(redis, LOCK)).isTrue();
			assertThat(tryNow(service(second))).isEqualTo("refused");
			subscription.dispose();
			assertThat(cancelled).as("the work was cancelled").hasValue(1);
			await().atMost(Duration.ofSeconds(10)).until(() -> !RedisKeys.exists(redis, LOCK));
			assertThat(tryNow(service(second))).isEqualTo("acquired");
		}));
	}

	@Test
	void aSubscriptionCancelledWhileItWaitsNeverTakesTheLock() {
		this.runner.run((first) -> this.runner.run((second) -> {
			CompletableFuture<String> held = new CompletableFuture<>();
			CompletableFuture<String> holder = service(second).mono("1", Mono.fromFuture(held)).toFuture();
			await().atMost(Duration.ofSeconds(10)).until(() -> RedisKeys.exists(redis, LOCK));
			ReactiveService waiting = service(first);
			Disposable subscription = waiting.patient("1", Mono.just("never runs")).subscribe();
			await().atMost(Duration.ofSeconds(10)).until(() -> waiters() == 1);
			subscription.dispose();
			// Well within the 30 s it would otherwise wait: the cancellation interrupted the wait.
			await().atMost(Duration.ofSeconds(10)).until(() -> waiters() == 0);
			held.complete("done");
			assertThat(holder.get(10, TimeUnit.SECONDS)).isEqualTo("done");
			assertThat(tryNow(service(second))).as("nobody took it in the cancelled waiter's name")
				.isEqualTo("acquired");
			assertThat(target(waiting).invocations).hasValue(0);
			assertThat(RedisKeys.locks(redis)).isEmpty();
		}));
	}

	@Test
	void eachSubscriptionIsItsOwnAcquisitionAndSeesItsToken() {
		this.runner.run((context) -> {
			Mono<List<Long>> tokens = service(context).tokens("1");
			List<Long> first = tokens.block(Duration.ofSeconds(10));
			List<Long> second = tokens.block(Duration.ofSeconds(10));
			assertThat(first.get(0)).as("assembly and pipeline see the same lock").isEqualTo(first.get(1));
			assertThat(second.get(0)).isEqualTo(second.get(1)).isGreaterThan(first.get(0));
			assertThat(ReactiveLockContext.current().block()).as("nothing outside a locked publisher").isNull();
			assertThat(RedisKeys.locks(redis)).isEmpty();
		});
	}

	@Test
	void aLockLostBeforeTheWorkEndsFailsTheSubscriptionWithLockLostException() {
		this.runner.run((context) -> {
			CompletableFuture<String> work = new CompletableFuture<>();
			CompletableFuture<String> result = service(context).rollbackOnLoss("1", Mono.fromFuture(work)).toFuture();
			await().atMost(Duration.ofSeconds(10)).until(() -> RedisKeys.exists(redis, LOCK));
			deleteLock();
			assertThat(awaitLoss().reason()).isEqualTo(LostLock.Reason.NOT_OWNED);
			assertThat(result).as("the work still runs").isNotDone();
			work.complete("done");
			assertThat(result).failsWithin(Duration.ofSeconds(10))
				.withThrowableThat()
				.havingCause()
				.isInstanceOfSatisfying(LockLostException.class, (ex) -> {
					assertThat(ex.getLockName()).isEqualTo("reactive");
					assertThat(ex.getLockKey()).isEqualTo("1");
					assertThat(ex.getReason()).isEqualTo(LostLock.Reason.NOT_OWNED);
				});
		});
	}

	@Test
	void interruptCancelsTheWorkAsSoonAsTheLossIsFound() {
		this.runner.run((context) -> {
			AtomicInteger cancelled = new AtomicInteger();
			CompletableFuture<List<String>> result = service(context)
				.interruptOnLoss("1", Flux.<String>never().doOnCancel(cancelled::incrementAndGet))
				.collectList()
				.toFuture();
			await().atMost(Duration.ofSeconds(10)).until(() -> RedisKeys.exists(redis, LOCK));
			long deleted = System.nanoTime();
			deleteLock();
			assertThat(result).failsWithin(Duration.ofSeconds(10))
				.withThrowableThat()
				.havingCause()
				.isInstanceOfSatisfying(LockLostException.class,
						(ex) -> assertThat(ex.getReason()).isEqualTo(LostLock.Reason.NOT_OWNED));
			assertThat(cancelled).hasValue(1);
			assertThat(Duration.ofNanos(System.nanoTime() - deleted))
				.as("found by a renewal, before the lease could have run out")
				.isLessThan(Duration.ofMillis(LEASE_MILLIS));
		});
	}

	@Test
	void ignoreLetsTheValueStand() {
		this.runner.run((context) -> {
			CompletableFuture<String> work = new CompletableFuture<>();
			CompletableFuture<String> result = service(context).ignoreLoss("1", Mono.fromFuture(work)).toFuture();
			await().atMost(Duration.ofSeconds(10)).until(() -> RedisKeys.exists(redis, LOCK));
			deleteLock();
			awaitLoss();
			work.complete("done");
			assertThat(result.get(10, TimeUnit.SECONDS)).isEqualTo("done");
		});
	}

	@Test
	void aLockedPublisherInsideItsOwnLocksPipelineEntersItOnAnotherThread() {
		this.runner.run((context) -> {
			List<Long> tokens = service(context).outerThenInner("1", true).block(Duration.ofSeconds(10));
			assertThat(tokens.get(1)).as("the inner call entered the outer lock: one acquisition")
				.isEqualTo(tokens.get(0));
			assertThatExceptionOfType(LockReentryException.class)
				.isThrownBy(() -> service(context).outerThenInner("1", false).block(Duration.ofSeconds(10)))
				.withMessageContaining("already held by this reactive pipeline");
			assertThat(RedisKeys.locks(redis)).isEmpty();
		});
	}

	@Test
	void aLockedPublisherSubscribedOnAThreadThatHoldsItsLockEntersIt() {
		this.runner.run((context) -> {
			assertThat(service(context).blockingOuter("1")).as("inner token minus outer token").isZero();
			assertThat(RedisKeys.locks(redis)).isEmpty();
		});
	}

	@Test
	void aBusyLockIsAnsweredByTheFallbacksPublisher() {
		this.runner.run((first) -> this.runner.run((second) -> {
			CompletableFuture<String> held = new CompletableFuture<>();
			CompletableFuture<String> holder = service(second).mono("1", Mono.fromFuture(held)).toFuture();
			await().atMost(Duration.ofSeconds(10)).until(() -> RedisKeys.exists(redis, LOCK));
			assertThat(service(first).withFallback("1").block(Duration.ofSeconds(10))).isEqualTo("busy 1");
			held.complete("done");
			holder.get(10, TimeUnit.SECONDS);
			assertThat(service(first).withFallback("1").block(Duration.ofSeconds(10))).isEqualTo("locked");
		}));
	}

	@Test
	void waitingNeverBlocksTheSubscribingThread() {
		Scheduler eventLoop = Schedulers.newParallel("event-loop", 1);
		try {
			this.runner.run((first) -> this.runner.run((second) -> {
				CompletableFuture<String> held = new CompletableFuture<>();
				CompletableFuture<String> holder = service(second).mono("1", Mono.fromFuture(held)).toFuture();
				await().atMost(Duration.ofSeconds(10)).until(() -> RedisKeys.exists(redis, LOCK));
				CompletableFuture<String> waiting = service(first).mono("1", Mono.just("mine"))
					.subscribeOn(eventLoop)
					.toFuture();
				await().atMost(Duration.ofSeconds(10)).until(() -> waiters() == 1);
				CountDownLatch loopFree = new CountDownLatch(1);
				eventLoop.schedule(loopFree::countDown);
				assertThat(loopFree.await(5, TimeUnit.SECONDS)).as("the event loop runs other work meanwhile")
					.isTrue();
				assertThat(waiting).isNotDone();
				held.complete("done");
				assertThat(holder.get(10, TimeUnit.SECONDS)).isEqualTo("done");
				assertThat(waiting.get(10, TimeUnit.SECONDS)).isEqualTo("mine");
			}));
		}
		finally {
			eventLoop.dispose();
		}
	}

	@Test
	void subscriptionsFromTwoInstancesExcludeEachOtherExactly() {
		this.runner.run((first) -> this.runner.run((second) -> {
			AtomicInteger inside = new AtomicInteger();
			AtomicInteger maximum = new AtomicInteger();
			AtomicInteger count = new AtomicInteger();
			List<Mono<Integer>> calls = new ArrayList<>();
			for (int i = 0; i < 20; i++) {
				calls.add(service(first).exclusive("1", inside, maximum, count));
				calls.add(service(second).exclusive("1", inside, maximum, count));
			}
			List<Integer> seen = Flux.merge(calls).collectList().block(Duration.ofSeconds(60));
			assertThat(seen).hasSize(40).doesNotHaveDuplicates();
			assertThat(count).as("no increment lost").hasValue(40);
			assertThat(maximum).as("never two inside").hasValue(1);
			assertThat(RedisKeys.locks(redis)).isEmpty();
		}));
	}

	/** Callers queued for the lock, as the Redis engine records them. */
	private static long waiters() {
		try (RespClient client = redis.client()) {
			return (Long) client.call("ZCARD", LOCK + ":waiters");
		}
	}

	private static void deleteLock() {
		try (RespClient client = redis.client()) {
			assertThat(client.call("DEL", LOCK)).isEqualTo(1L);
		}
	}

	private static LostLock awaitLoss() throws InterruptedException {
		// A wait, not a bound: how soon is checked against the lease where it matters.
		LostLock loss = losses.poll(10, TimeUnit.SECONDS);
		assertThat(loss).as("a loss reported").isNotNull();
		return loss;
	}

}
