package io.github.distlock.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.redisson.api.RedissonClient;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import io.github.distlock.LockAcquisitionException;
import io.github.distlock.autoconfigure.LockedServices.OrderService;
import io.github.distlock.autoconfigure.LockedServices.OrderServiceApplication;
import io.github.distlock.redis.RedisLockEngine;
import io.github.distlock.fixtures.redis.RedisCluster;
import io.github.distlock.fixtures.redis.RedisClusterExtension;
import io.github.distlock.fixtures.redis.RedisProcess;
import io.github.distlock.fixtures.redis.RespClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Spring Boot's cluster settings ({@code spring.data.redis.cluster.nodes}) are enough: the client distlock builds from
 * them is a Redisson cluster client, the start-up checks pass on a real Redis Cluster of three masters, and an
 * annotated method's lock lands on the master of its slot, held while the method runs; and after a failover, coordinated
 * or not, its calls reach the new master within one of the client's topology scans of the cluster agreeing on it.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ClusterSettingsIntegrationTests {

	@RegisterExtension
	static final RedisClusterExtension redis = RedisClusterExtension.masters(3, 1);

	/** The command timeout the failover tests give the client: a call to a master that is gone fails in that time. */
	private static final Duration COMMAND_TIMEOUT = Duration.ofMillis(500);

	/** How often the failover tests start a call while they wait for the client to reach the new master. */
	private static final Duration CALL_CADENCE = Duration.ofMillis(50);

	private static ApplicationContextRunner contextRunner() {
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, DataRedisAutoConfiguration.class,
					RedisLockEngineAutoConfiguration.class, DistLockAutoConfiguration.class))
			.withUserConfiguration(OrderServiceApplication.class)
			.withPropertyValues(redis.springProperties());
	}

	@Test
	@Order(1)
	void locksTakenThroughSpringBootsClusterSettingsLandOnTheMasterOfTheirSlot() {
		contextRunner().run((context) -> {
				assertThat(context).hasNotFailed().hasSingleBean(RedisLockEngine.class);
				assertThat(context.getBean(RedissonClient.class).getConfig().isClusterConfig()).isTrue();
				// A master that dies is replaced within about a second: the client must learn of it as soon.
				assertThat(context.getBean(RedissonClient.class).getConfig().useClusterServers().getScanInterval())
					.as("how often the client reads the topology, in ms").isLessThanOrEqualTo(1000);
				OrderService orders = context.getBean(OrderService.class);
				String lockKey = "distlock:{shared:via-cluster}";
				String seen = orders.shared("via-cluster", () -> {
					// From another thread: this one holds the lock, and would enter it again.
					assertThatExceptionOfType(ExecutionException.class).as("held while the method runs")
						.isThrownBy(() -> CompletableFuture
							.supplyAsync(() -> call(() -> orders.sharedNoWait("via-cluster", () -> "entered twice")))
							.get(10, TimeUnit.SECONDS))
						.withCauseInstanceOf(LockAcquisitionException.class);
					try (RespClient master = redis.cluster().clientFor(lockKey)) {
						return master.get(lockKey);
					}
				});
				assertThat(seen).as("the lock, read on the master of its slot while held").isNotNull();
				assertThat(RespClient.withoutTokenFloors(redis.cluster().keys("distlock:*"))).as("released").isEmpty();
			});
	}

	@Test
	@Order(2)
	void afterACoordinatedFailoverCallsReachTheNewMasterWithinOneTopologyScan() {
		callsReachTheNewMasterWithinOneTopologyScan("coordinated",
				(replica) -> redis.cluster().failover(replica));
	}

	/** Last: the killed master stays dead, and its replica serves its slots for the rest of the class. */
	@Test
	@Order(3)
	void afterAKilledMastersReplicaTookOverCallsReachItWithinOneTopologyScan() {
		callsReachTheNewMasterWithinOneTopologyScan("killed", (replica) -> {
			redis.cluster().masterOf(lockKey("killed")).kill();
			redis.cluster().awaitPromoted(replica);
		});
	}

	/**
	 * Calls for a lock whose master is replaced, started every {@link #CALL_CADENCE} from before the failover until
	 * well after it. Redisson learns of a new master at its next topology scan (a killed master's slots) or from a
	 * MOVED answer it then has to follow; until then calls fail. Every call started once the cluster agrees on the new
	 * master plus one scan interval and one command timeout (a connection to the new master may still be opening) must
	 * reach it within one command timeout, not through Redisson's retries: acquire the lock, or find it held by another
	 * of these calls.
	 */
	private void callsReachTheNewMasterWithinOneTopologyScan(String id, Consumer<RedisProcess> failover) {
		contextRunner().withPropertyValues("spring.data.redis.timeout=" + COMMAND_TIMEOUT.toMillis() + "ms")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				OrderService orders = context.getBean(OrderService.class);
				// What distlock promises, not what the client was given: a client left at Redisson's 5 s fails here.
				long scanMillis = DataRedisRedissonConfig.CLUSTER_SCAN_MILLIS;
				assertThat(orders.sharedNoWait(id, () -> "before")).as("locked before the failover").isEqualTo("before");
				RedisCluster cluster = redis.cluster();
				RedisProcess replica = cluster.replicaOf(cluster.masterOf(lockKey(id)));

				failover.accept(replica);
				long agreed = System.nanoTime();
				assertThat(cluster.masterOf(lockKey(id))).as("the replica serves the lock's slot").isSameAs(replica);

				long settled = agreed + TimeUnit.MILLISECONDS.toNanos(scanMillis) + COMMAND_TIMEOUT.toNanos();
				// Calls started until two scans past the settling time: long enough to see any that still fail.
				long end = settled + 2 * TimeUnit.MILLISECONDS.toNanos(scanMillis);
				List<CallOutcome> outcomes = new ArrayList<>();
				// A thread per call: a call stuck on the old master must not hold back the next one.
				ExecutorService callers = Executors.newCachedThreadPool();
				while (System.nanoTime() - end < 0) {
					long started = System.nanoTime();
					CompletableFuture<Throwable> call = CompletableFuture.supplyAsync(() -> {
						try {
							orders.sharedNoWait(id, () -> "after");
							return null;
						}
						catch (Throwable ex) {
							return ex;
						}
					}, callers).thenApply((failure) -> {
						long took = System.nanoTime() - started;
						if (failure == null && took > COMMAND_TIMEOUT.toNanos()) {
							return new AssertionError("reached the new master only after " + (took / 1_000_000) + " ms");
						}
						return failure;
					});
					outcomes.add(new CallOutcome(started, call));
					LockSupport.parkNanos(CALL_CADENCE.toNanos());
				}
				List<CallOutcome> late = outcomes.stream().filter((outcome) -> outcome.started - settled > 0).toList();
				assertThat(late).as("calls started once the client should know the new master").isNotEmpty();
				for (CallOutcome outcome : late) {
					Throwable failure = outcome.call.get(30, TimeUnit.SECONDS);
					if (failure != null) {
						assertThat(failure)
							.as("a call started %d ms after the cluster agreed on the new master (scan interval %d ms)",
									TimeUnit.NANOSECONDS.toMillis(outcome.started - agreed), scanMillis)
							.isInstanceOf(LockAcquisitionException.class);
						assertThat(outcome.call.join()).isNotInstanceOf(AssertionError.class);
					}
				}
				long firstReached = outcomes.stream()
					.filter((outcome) -> outcome.call.join() == null)
					.mapToLong((outcome) -> outcome.started - agreed)
					.min()
					.orElseThrow();
				callers.shutdown();
				System.out.printf("[%s] first call to reach the new master started %d ms after the cluster agreed%n", id,
						TimeUnit.NANOSECONDS.toMillis(firstReached));
			});
	}

	private static String lockKey(String id) {
		return "distlock:{shared:" + id + "}";
	}

	private record CallOutcome(long started, CompletableFuture<Throwable> call) {
	}

	private static <T> T call(Callable<T> work) {
		try {
			return work.call();
		}
		catch (RuntimeException ex) {
			throw ex;
		}
		catch (Exception ex) {
			throw new IllegalStateException(ex);
		}
	}

}
