package io.github.distlock.actuate;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

import io.github.distlock.DistributedLock;
import io.github.distlock.LockMode;
import io.github.distlock.LockAcquisitionException;
import io.github.distlock.LockLostException;
import io.github.distlock.LostLock;
import io.github.distlock.fixtures.redis.RedisExtension;
import io.github.distlock.fixtures.redis.RespClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Actuator over real HTTP against a real redis-server: the {@code distlock} health component going DOWN and UP
 * with Redis, the metrics after locked calls, timeouts and a lost lock, and the {@code distlocks} endpoint.
 */
class ActuatorIntegrationTests {

	@RegisterExtension
	static final RedisExtension redis = RedisExtension.localProcess();

	private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

	private ExecutorService executor;

	@BeforeEach
	void startExecutor() {
		this.executor = Executors.newCachedThreadPool();
	}

	@AfterEach
	void stopExecutor() throws InterruptedException {
		this.executor.shutdownNow();
		this.executor.awaitTermination(10, TimeUnit.SECONDS);
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class App {

		@Bean
		Service service() {
			return new Service();
		}

	}

	public static class Service {

		@DistributedLock(key = "#id", name = "orders", lease = "600ms", waitTime = "0s")
		public String hold(String id, CountDownLatch entered, CountDownLatch leave) throws InterruptedException {
			entered.countDown();
			leave.await(30, TimeUnit.SECONDS);
			return "done";
		}

		@DistributedLock(key = "#id", name = "catalog", mode = LockMode.READ, waitTime = "0s")
		public String read(String id, CountDownLatch entered, CountDownLatch leave) throws InterruptedException {
			entered.countDown();
			leave.await(30, TimeUnit.SECONDS);
			return "read";
		}

		@DistributedLock(key = "#id", name = "orders", waitTime = "0s")
		public String quick(String id) {
			return "done";
		}

	}

	private ConfigurableApplicationContext start(String... extraProperties) {
		return new SpringApplicationBuilder(App.class)
			.properties(redis.springProperties())
			.properties("server.port=0", "spring.main.banner-mode=off", "spring.data.redis.timeout=300ms",
					"distlock.health.timeout=500ms", "management.endpoints.web.exposure.include=health,metrics,distlocks",
					"management.endpoint.health.show-details=always")
			.properties(extraProperties)
			.run();
	}

	private HttpResponse<String> request(ConfigurableApplicationContext context, String method, String path)
			throws Exception {
		int port = ((WebServerApplicationContext) context).getWebServer().getPort();
		HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
			.timeout(Duration.ofSeconds(10))
			.method(method, HttpRequest.BodyPublishers.noBody())
			.build();
		return this.http.send(request, HttpResponse.BodyHandlers.ofString());
	}

	private HttpResponse<String> get(ConfigurableApplicationContext context, String path) throws Exception {
		return request(context, "GET", path);
	}

	@Test
	void healthIsUpThenDownWhileRedisIsGoneThenUpAgainWithoutARestart() throws Exception {
		try (ConfigurableApplicationContext context = start()) {
			HttpResponse<String> up = get(context, "/actuator/health/distlock");
			assertThat(up.statusCode()).isEqualTo(200);
			assertThat(up.body()).contains("\"status\":\"UP\"").contains("roundTripMillis").contains("locksHeld")
				.doesNotContain("redis://").doesNotContain(redis.host() + ":" + redis.port());

			redis.server().kill();
			long start = System.nanoTime();
			HttpResponse<String> down = get(context, "/actuator/health/distlock");
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(3));
			assertThat(down.statusCode()).isEqualTo(503);
			assertThat(down.body()).contains("\"status\":\"DOWN\"").doesNotContain(String.valueOf(redis.port()));

			redis.server().restart();
			HttpResponse<String> again = awaitStatus(context, "/actuator/health/distlock", 200, Duration.ofSeconds(20));
			assertThat(again.body()).contains("\"status\":\"UP\"");
			assertThat(context.getBean(Service.class).quick("after-restart")).isEqualTo("done");
		}
	}

	private HttpResponse<String> awaitStatus(ConfigurableApplicationContext context, String path, int status,
			Duration within) throws Exception {
		long deadline = System.nanoTime() + within.toNanos();
		HttpResponse<String> response;
		do {
			response = get(context, path);
			if (response.statusCode() == status) {
				return response;
			}
			Thread.sleep(100);
		}
		while (System.nanoTime() < deadline);
		throw new AssertionError("Still " + response.statusCode() + " after " + within + ": " + response.body());
	}

	@Test
	void metricsCountAcquisitionsTimeoutsHoldsAndLostLocksByNameNeverByKey() throws Exception {
		try (ConfigurableApplicationContext context = start()) {
			// Before any loss, the declared lock's loss counters are there, at zero, for dashboards and alerts.
			for (LostLock.Reason reason : LostLock.Reason.values()) {
				assertThat(count(context, "distlock.lost?tag=name:orders&tag=reason:"
						+ reason.name().toLowerCase(java.util.Locale.ROOT))).as(reason.name()).isZero();
			}
			Service service = context.getBean(Service.class);
			for (int i = 0; i < 3; i++) {
				service.quick("m-" + i);
			}
			CountDownLatch entered = new CountDownLatch(1);
			CountDownLatch leave = new CountDownLatch(1);
			Future<String> holder = this.executor.submit(() -> service.hold("busy", entered, leave));
			assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
			assertThatExceptionOfType(LockAcquisitionException.class).isThrownBy(() -> service.quick("busy"));
			try (RespClient client = redis.client()) {
				client.call("DEL", "distlock:{orders:busy}");
			}
			awaitMetric(context, "distlock.lost?tag=name:orders&tag=reason:not_owned", 1);
			leave.countDown();
			assertThatExceptionOfType(java.util.concurrent.ExecutionException.class)
				.isThrownBy(() -> holder.get(10, TimeUnit.SECONDS))
				.withCauseInstanceOf(LockLostException.class);

			assertThat(count(context, "distlock.acquire?tag=name:orders&tag=outcome:acquired")).isEqualTo(4);
			assertThat(count(context, "distlock.acquire?tag=name:orders&tag=outcome:timed_out")).isEqualTo(1);
			assertThat(count(context, "distlock.held?tag=name:orders&tag=outcome:released")).isEqualTo(3);
			assertThat(count(context, "distlock.held?tag=name:orders&tag=outcome:lost")).isEqualTo(1);
			assertThat(get(context, "/actuator/metrics/distlock.renewals?tag=outcome:not_owned").statusCode())
				.isEqualTo(200);
			assertThat(get(context, "/actuator/metrics/distlock.locks.held").body()).contains("\"value\":0.0");
			for (String timer : new String[] { "distlock.acquire", "distlock.held" }) {
				// Micrometer's own tag on every observation's timer, which docs/observability.md names.
				assertThat(get(context, "/actuator/metrics/" + timer).body()).as(timer).contains("\"tag\":\"error\"");
			}
			for (String meter : new String[] { "distlock.acquire", "distlock.held", "distlock.lost" }) {
				String description = get(context, "/actuator/metrics/" + meter).body();
				assertThat(description).as(meter).contains("\"tag\":\"name\"").doesNotContain("\"tag\":\"key\"")
					.doesNotContain("busy");
			}
		}
	}

	/**
	 * A ShedLock run (distlock-shedlock's provider, auto-configured) is a distlock lock like any other: it counts in
	 * the same meters under its lock name, shows in the endpoint while held, and a job that outlives its
	 * lockAtMostFor is a lost lock, counted and timed as lost, where ShedLock alone says nothing.
	 * <p>
	 * The run the endpoint is read during has a lockAtMostFor far beyond what the reads take; only the second run's
	 * is short, since it must run out. (With one short run for both, a machine slow enough to take longer than its
	 * 600 ms over the second try and the endpoint's read found the lock already gone.)
	 */
	@Test
	void aShedLockRunCountsInTheMetersShowsInTheEndpointAndOutlivingLockAtMostForIsALoss() throws Exception {
		try (ConfigurableApplicationContext context = start()) {
			LockProvider provider = context.getBean(LockProvider.class);
			SimpleLock run = provider
				.lock(new LockConfiguration(ClockProvider.now(), "nightly-report", Duration.ofSeconds(30),
						Duration.ZERO))
				.orElseThrow();
			assertThat(provider.lock(
					new LockConfiguration(ClockProvider.now(), "nightly-report", Duration.ofSeconds(5), Duration.ZERO)))
				.as("another run meanwhile is skipped").isEmpty();
			assertThat(get(context, "/actuator/distlocks").body()).contains("\"name\":\"shedlock\"")
				.contains("\"key\":\"nightly-report\"");
			run.unlock();

			// The next run outlives its lockAtMostFor (600 ms, never renewed): the engine reports the lock lost.
			SimpleLock outlived = provider
				.lock(new LockConfiguration(ClockProvider.now(), "nightly-report", Duration.ofMillis(600),
						Duration.ZERO))
				.orElseThrow();
			awaitMetric(context, "distlock.lost?tag=name:shedlock&tag=reason:lease_expired", 1);
			outlived.unlock();

			assertThat(count(context, "distlock.acquire?tag=name:shedlock&tag=outcome:acquired")).isEqualTo(2);
			assertThat(count(context, "distlock.acquire?tag=name:shedlock&tag=outcome:timed_out")).isEqualTo(1);
			assertThat(count(context, "distlock.held?tag=name:shedlock&tag=outcome:released")).isEqualTo(1);
			assertThat(count(context, "distlock.held?tag=name:shedlock&tag=outcome:lost")).isEqualTo(1);
			assertThat(get(context, "/actuator/distlocks").body()).isEqualTo("{\"locks\":[],\"elections\":[]}");
		}
	}

	private double count(ConfigurableApplicationContext context, String query) throws Exception {
		HttpResponse<String> response = get(context, "/actuator/metrics/" + query);
		assertThat(response.statusCode()).as(query + ": " + response.body()).isEqualTo(200);
		Matcher matcher = Pattern.compile("\"statistic\":\"COUNT\",\"value\":([0-9.]+)").matcher(response.body());
		assertThat(matcher.find()).as(response.body()).isTrue();
		return Double.parseDouble(matcher.group(1));
	}

	private void awaitMetric(ConfigurableApplicationContext context, String query, double atLeast) throws Exception {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
		while (System.nanoTime() < deadline) {
			HttpResponse<String> response = get(context, "/actuator/metrics/" + query);
			if (response.statusCode() == 200 && count(context, query) >= atLeast) {
				return;
			}
			Thread.sleep(50);
		}
		throw new AssertionError("No metric " + query + " reaching " + atLeast);
	}

	@Test
	void theEndpointListsAHeldLockOnlyWhileItIsHeldAndHasNoForceReleaseByDefault() throws Exception {
		try (ConfigurableApplicationContext context = start()) {
			CountDownLatch entered = new CountDownLatch(1);
			CountDownLatch leave = new CountDownLatch(1);
			Future<String> holder = this.executor
				.submit(() -> context.getBean(Service.class).hold("o-42", entered, leave));
			assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
			HttpResponse<String> held = get(context, "/actuator/distlocks");
			assertThat(held.statusCode()).isEqualTo(200);
			assertThat(held.body()).contains("\"name\":\"orders\"").contains("\"key\":\"o-42\"")
				.contains("\"mode\":\"EXCLUSIVE\"").contains("\"token\":").contains("\"holder\":")
				.contains("\"leaseRemainingMillis\":");
			CountDownLatch reading = new CountDownLatch(1);
			Future<String> reader = this.executor
				.submit(() -> context.getBean(Service.class).read("c-7", reading, leave));
			assertThat(reading.await(10, TimeUnit.SECONDS)).isTrue();
			assertThat(get(context, "/actuator/distlocks").body()).as("a reader shows its side of the lock")
				.contains("\"name\":\"catalog\",\"key\":\"c-7\",\"mode\":\"READ\",\"permits\":0");
			assertThat(request(context, "DELETE", "/actuator/distlocks/orders/o-42").statusCode()).isIn(404, 405);
			try (RespClient client = redis.client()) {
				assertThat(client.get("distlock:{orders:o-42}")).as("the lock is still held").isNotNull();
			}
			leave.countDown();
			assertThat(holder.get(10, TimeUnit.SECONDS)).isEqualTo("done");
			assertThat(reader.get(10, TimeUnit.SECONDS)).isEqualTo("read");
			assertThat(get(context, "/actuator/distlocks").body()).isEqualTo("{\"locks\":[],\"elections\":[]}");
		}
	}

	@Test
	void forceReleaseWhenEnabledRemovesTheLockAndItsHolderLearnsOfTheLoss() throws Exception {
		try (ConfigurableApplicationContext context = start("distlock.endpoint.force-release=true")) {
			CountDownLatch entered = new CountDownLatch(1);
			CountDownLatch leave = new CountDownLatch(1);
			Future<String> holder = this.executor
				.submit(() -> context.getBean(Service.class).hold("stuck", entered, leave));
			assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
			HttpResponse<String> released = request(context, "DELETE", "/actuator/distlocks/orders/stuck");
			assertThat(released.statusCode()).isEqualTo(200);
			assertThat(released.body()).contains("\"released\":true");
			awaitMetric(context, "distlock.lost?tag=name:orders", 1);
			leave.countDown();
			assertThatExceptionOfType(java.util.concurrent.ExecutionException.class)
				.isThrownBy(() -> holder.get(10, TimeUnit.SECONDS))
				.withCauseInstanceOf(LockLostException.class);
		}
	}

}
