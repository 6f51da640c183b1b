package io.github.distlock.autoconfigure;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.stream.IntStream;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import reactor.core.publisher.Mono;

import io.github.distlock.DistributedLock;
import io.github.distlock.InvalidLockKeyException;
import io.github.distlock.LockAcquisitionException;
import io.github.distlock.LockContext;
import io.github.distlock.LockLostException;
import io.github.distlock.LockLostListener;
import io.github.distlock.LostLock;
import io.github.distlock.fixtures.redis.RedisExtension;
import io.github.distlock.fixtures.redis.RespClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * A key expression that yields a collection or an array locks every key in it, all or none, on a real redis-server
 * with two application contexts: transfers between accounts named in either order never deadlock and never lose
 * money; a key that cannot be had releases those already taken; each key has its own token; losing any key fails
 * the call; a method returning a stage holds every key until the stage completes.
 */
class KeySetLockIntegrationTests {

	@RegisterExtension
	static final RedisExtension redis = RedisExtension.anyServer();

	private static final int ACCOUNTS = 10;

	private static final int START_BALANCE = 1_000;

	/** The accounts' balances, shared by both contexts as a database would be; guarded only by the locks. */
	static final int[] balances = new int[ACCOUNTS];

	/** How many calls are inside each account's lock at a time: never more than one. */
	static final AtomicIntegerArray inside = new AtomicIntegerArray(ACCOUNTS);

	static final AtomicInteger overlaps = new AtomicInteger();

	static final BlockingQueue<LostLock> losses = new LinkedBlockingQueue<>();

	private final ApplicationContextRunner runner = LockContexts.onRedis(redis).withUserConfiguration(Beans.class);

	private ExecutorService executor;

	@BeforeEach
	void setUp() {
		Arrays.fill(balances, START_BALANCE);
		for (int i = 0; i < ACCOUNTS; i++) {
			inside.set(i, 0);
		}
		overlaps.set(0);
		losses.clear();
		this.executor = Executors.newCachedThreadPool();
	}

	@AfterEach
	void tearDown() throws InterruptedException {
		this.executor.shutdownNow();
		this.executor.awaitTermination(10, TimeUnit.SECONDS);
		assertThat(RedisKeys.removeLeftOver(redis)).as("lock keys left by the test").isEmpty();
	}

	@Configuration(proxyBeanMethods = false)
	static class Beans {

		@Bean
		Bank bank() {
			return new Bank();
		}

		@Bean
		LockLostListener recordingListener() {
			return losses::add;
		}

	}

	/** A transfer names its two accounts in the order the caller chose. */
	public record Transfer(int from, int to, int amount) {

		public List<Integer> accounts() {
			return List.of(this.from, this.to);
		}

	}

	public static class Bank {

		@DistributedLock(name = "account", key = "#transfer.accounts()", waitTime = "20s")
		public void transfer(Transfer transfer) {
			enter(transfer.from());
			enter(transfer.to());
			try {
				int from = balances[transfer.from()];
				int to = balances[transfer.to()];
				// Widens the window between reading and writing, where a missing lock would lose money.
				Thread.yield();
				balances[transfer.from()] = from - transfer.amount();
				balances[transfer.to()] = to + transfer.amount();
			}
			finally {
				inside.decrementAndGet(transfer.from());
				inside.decrementAndGet(transfer.to());
			}
		}

		private static void enter(int account) {
			if (inside.incrementAndGet(account) > 1) {
				overlaps.incrementAndGet();
			}
		}

		@DistributedLock(name = "account", key = "#accounts", waitTime = "300ms")
		public List<LockContext> hold(String[] accounts, CountDownLatch entered, CountDownLatch leave)
				throws InterruptedException {
			List<LockContext> contexts = LockContext.all();
			entered.countDown();
			leave.await(10, TimeUnit.SECONDS);
			return contexts;
		}

		@DistributedLock(name = "account", key = "#account")
		public void holdOne(String account, CountDownLatch entered, CountDownLatch leave) throws InterruptedException {
			entered.countDown();
			leave.await(10, TimeUnit.SECONDS);
		}

		@DistributedLock(name = "account", key = "#accounts", waitTime = "0s")
		public String tryAll(List<String> accounts) {
			return "done";
		}

		@DistributedLock(name = "account", key = "#accounts", lease = "600ms")
		public void holdWhile(List<String> accounts, CountDownLatch entered, CountDownLatch leave)
				throws InterruptedException {
			entered.countDown();
			leave.await(10, TimeUnit.SECONDS);
		}

		/** The keys attribute: two expressions, one of which yields a collection itself. */
		@DistributedLock(name = "account", keys = { "#first", "#others" }, waitTime = "0s")
		public List<String> keysAttribute(String first, List<String> others) {
			return LockContext.all().stream().map(LockContext::key).toList();
		}

		/** A key that is iterable but one thing: a path is locked whole, not by its name elements. */
		@DistributedLock(name = "file", key = "#path", waitTime = "0s")
		public List<String> onePath(Path path) {
			return LockContext.all().stream().map(LockContext::key).toList();
		}

		/** Holds its keys until the stage it returns completes. */
		@DistributedLock(name = "account", key = "#accounts")
		public CompletableFuture<String> later(List<String> accounts, CompletableFuture<String> work) {
			return work;
		}

		@DistributedLock(name = "account", key = "#accounts")
		public Mono<String> reactive(List<String> accounts) {
			return Mono.just("reactive");
		}

	}

	@Test
	void transfersNamingTheirAccountsInEitherOrderNeverDeadlockAndNeverLoseMoney() {
		this.runner.run((first) -> this.runner.run((second) -> {
			List<Bank> banks = List.of(first.getBean(Bank.class), second.getBean(Bank.class));
			int threadsPerContext = 8;
			int transfersPerThread = 60;
			List<Future<Integer>> done = new ArrayList<>();
			for (Bank bank : banks) {
				for (int t = 0; t < threadsPerContext; t++) {
					done.add(this.executor.submit(() -> {
						ThreadLocalRandom random = ThreadLocalRandom.current();
						for (int i = 0; i < transfersPerThread; i++) {
							int from = random.nextInt(ACCOUNTS);
							int to = (from + 1 + random.nextInt(ACCOUNTS - 1)) % ACCOUNTS;
							bank.transfer(new Transfer(from, to, random.nextInt(1, 50)));
						}
						return transfersPerThread;
					}));
				}
			}
			int transfers = 0;
			for (Future<Integer> future : done) {
				transfers += future.get(120, TimeUnit.SECONDS);
			}
			assertThat(transfers).isEqualTo(2 * threadsPerContext * transfersPerThread);
			assertThat(IntStream.of(balances).sum()).as("money in all accounts").isEqualTo(ACCOUNTS * START_BALANCE);
			assertThat(overlaps.get()).as("calls inside one account's lock at once").isZero();
			assertThat(losses).isEmpty();
		}));
	}

	@Test
	void aKeyThatCannotBeHadReleasesTheKeysAlreadyTakenBeforeTheCallFails() {
		this.runner.run((first) -> this.runner.run((second) -> {
			CountDownLatch entered = new CountDownLatch(1);
			CountDownLatch leave = new CountDownLatch(1);
			Future<?> holder = this.executor.submit(() -> {
				first.getBean(Bank.class).holdOne("b", entered, leave);
				return null;
			});
			assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
			// "a" comes first in the canonical order, so it is taken before "b" is found busy.
			assertThatExceptionOfType(LockAcquisitionException.class)
				.isThrownBy(() -> second.getBean(Bank.class).hold(new String[] { "b", "a" }, new CountDownLatch(1),
						new CountDownLatch(0)))
				.withMessageContaining("'b'");
			assertThat(RedisKeys.exists(redis, "distlock:{account:a}")).as("a, taken first, released").isFalse();
			assertThat(first.getBean(Bank.class).tryAll(List.of("a"))).isEqualTo("done");
			leave.countDown();
			holder.get(10, TimeUnit.SECONDS);
			assertThat(second.getBean(Bank.class).tryAll(List.of("a", "b"))).isEqualTo("done");
		}));
	}

	@Test
	void everyKeyHasItsOwnTokenAndIsHeldUntilTheCallReturns() {
		this.runner.run((first) -> this.runner.run((second) -> {
			CountDownLatch entered = new CountDownLatch(1);
			CountDownLatch leave = new CountDownLatch(1);
			Future<List<LockContext>> call = this.executor.submit(
					() -> first.getBean(Bank.class).hold(new String[] { "y", "x", "y" }, entered, leave));
			assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
			for (String key : List.of("x", "y")) {
				assertThatExceptionOfType(LockAcquisitionException.class)
					.as("%s held", key)
					.isThrownBy(() -> second.getBean(Bank.class).tryAll(List.of(key)));
			}
			leave.countDown();
			List<LockContext> contexts = call.get(10, TimeUnit.SECONDS);
			assertThat(contexts).extracting(LockContext::key).containsExactly("x", "y");
			// Free keys are taken in one step, with one token value: each still exceeds every earlier token of its
			// own lock, which is what fences writes to that key's data.
			assertThat(contexts).extracting(LockContext::token).allMatch((token) -> token > 0);
			assertThat(second.getBean(Bank.class).tryAll(List.of("x", "y"))).isEqualTo("done");
		}));
	}

	@Test
	void freeKeysAreTakenInOneRoundTripAndReleasedOneByOne() {
		this.runner.run((context) -> {
			Bank bank = context.getBean(Bank.class);
			// Once first, so that loading the scripts into Redis is not counted.
			bank.tryAll(List.of("p", "q", "r"));
			long before = RedisKeys.scriptCalls(redis);
			assertThat(bank.tryAll(List.of("r", "q", "p"))).isEqualTo("done");
			assertThat(RedisKeys.scriptCalls(redis) - before).as("one acquisition for the three keys, three releases")
				.isEqualTo(4);
		});
	}

	@Test
	void losingAnyOneKeyFailsTheCall() {
		this.runner.run((context) -> {
			CountDownLatch entered = new CountDownLatch(1);
			CountDownLatch leave = new CountDownLatch(1);
			Future<?> call = this.executor.submit(() -> {
				context.getBean(Bank.class).holdWhile(List.of("p", "q"), entered, leave);
				return null;
			});
			assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
			try (RespClient client = redis.client()) {
				assertThat(client.call("DEL", "distlock:{account:q}")).isEqualTo(1L);
			}
			LostLock loss = losses.poll(10, TimeUnit.SECONDS);
			assertThat(loss).as("the loss reported").isNotNull();
			assertThat(loss.key()).isEqualTo("q");
			leave.countDown();
			assertThat(call).failsWithin(10, TimeUnit.SECONDS)
				.withThrowableOfType(ExecutionException.class)
				.havingCause()
				.isInstanceOf(LockLostException.class);
			assertThat(RedisKeys.exists(redis, "distlock:{account:p}")).as("the key still held, released").isFalse();
		});
	}

	@Test
	void aSetWithNoKeyOrANullKeyFailsTheCallWithoutRunningIt() {
		this.runner.run((context) -> {
			Bank bank = context.getBean(Bank.class);
			assertThatExceptionOfType(InvalidLockKeyException.class).isThrownBy(() -> bank.tryAll(List.of()))
				.withMessageContaining("Bank#tryAll")
				.withMessageContaining("empty collection");
			assertThatExceptionOfType(InvalidLockKeyException.class)
				.isThrownBy(() -> bank.tryAll(Arrays.asList("a", null)))
				.withMessageContaining("holding null");
			assertThatExceptionOfType(InvalidLockKeyException.class).isThrownBy(() -> bank.tryAll(List.of("a", " ")))
				.withMessageContaining("blank");
			assertThat(RedisKeys.locks(redis)).isEmpty();
		});
	}

	@Test
	void aMethodReturningAStageHoldsEveryKeyUntilTheStageCompletes() {
		this.runner.run((first) -> this.runner.run((second) -> {
			CompletableFuture<String> work = new CompletableFuture<>();
			CompletableFuture<String> result = first.getBean(Bank.class).later(List.of("s", "r"), work);
			for (String key : List.of("r", "s")) {
				assertThatExceptionOfType(LockAcquisitionException.class)
					.as("%s held while the stage runs", key)
					.isThrownBy(() -> second.getBean(Bank.class).tryAll(List.of(key)));
			}
			work.complete("paid");
			assertThat(result.get(10, TimeUnit.SECONDS)).isEqualTo("paid");
			assertThat(RedisKeys.locks(redis)).as("every key released before the caller's stage completed").isEmpty();
		}));
	}

	@Test
	void theKeysAttributeLocksEveryValueOfEveryExpression() {
		this.runner.run((context) -> assertThat(
				context.getBean(Bank.class).keysAttribute("m", List.of("o", "n", "m")))
			.containsExactly("m", "n", "o"));
	}

	@Test
	void aPathIsOneKeyThoughItIsIterable() {
		this.runner.run((context) -> assertThat(context.getBean(Bank.class).onePath(Path.of("/orders/2026/17")))
			.containsExactly("/orders/2026/17"));
	}

	@Test
	void aReactiveMethodWithSeveralKeysIsRefusedSayingWhy() {
		this.runner.run((context) -> assertThatExceptionOfType(UnsupportedOperationException.class)
			.isThrownBy(() -> context.getBean(Bank.class).reactive(List.of("a", "b")))
			.withMessageContaining("Bank#reactive")
			.withMessageContaining("names several locks"));
	}

}
