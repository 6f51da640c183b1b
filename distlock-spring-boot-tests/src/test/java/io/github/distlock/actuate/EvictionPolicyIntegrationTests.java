package io.github.distlock.actuate;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

import io.github.distlock.DistributedLock;
import io.github.distlock.fixtures.redis.RedisExtension;
import io.github.distlock.fixtures.redis.RespClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Redis's {@code maxmemory-policy}, read at start-up from {@code INFO memory} on a real redis-server: a warning
 * when Redis may evict held locks, the policy in the health details, and a start that goes on when the Redis user
 * may not run INFO.
 */
@ExtendWith(OutputCaptureExtension.class)
class EvictionPolicyIntegrationTests {

	@RegisterExtension
	static final RedisExtension redis = RedisExtension.anyServer();

	private static final String WARNING = "when Redis is full it may evict a held lock";

	private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class App {

		@Bean
		Service service() {
			return new Service();
		}

	}

	public static class Service {

		@DistributedLock(key = "#id", name = "eviction", waitTime = "0s")
		public String quick(String id) {
			return "done";
		}

	}

	@AfterEach
	void restoreRedis() {
		try (RespClient client = redis.client()) {
			client.call("CONFIG", "SET", "maxmemory-policy", "noeviction");
			client.call("CONFIG", "SET", "maxmemory", "0");
			client.call("ACL", "DELUSER", "no-info");
		}
	}

	private static void configure(String policy, String maxMemory) {
		try (RespClient client = redis.client()) {
			client.call("CONFIG", "SET", "maxmemory-policy", policy);
			client.call("CONFIG", "SET", "maxmemory", maxMemory);
		}
	}

	private ConfigurableApplicationContext start(String... extraProperties) {
		return new SpringApplicationBuilder(App.class)
			.properties("server.port=0", "spring.main.banner-mode=off", "spring.data.redis.host=" + redis.host(),
					"spring.data.redis.port=" + redis.port(), "management.endpoints.web.exposure.include=health",
					"management.endpoint.health.show-details=always",
					// The test logging configuration shows WARN only; a user's default shows INFO too.
					"logging.level.io.github.distlock.redis.EvictionPolicyWarning=info")
			.properties(extraProperties)
			.run();
	}

	private String health(ConfigurableApplicationContext context) throws Exception {
		int port = ((WebServerApplicationContext) context).getWebServer().getPort();
		HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/actuator/health/distlock"))
			.timeout(Duration.ofSeconds(10))
			.build();
		HttpResponse<String> response = this.http.send(request, HttpResponse.BodyHandlers.ofString());
		assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
		return response.body();
	}

	@ParameterizedTest
	@ValueSource(strings = { "allkeys-lru", "volatile-lru" })
	void aPolicyThatEvictsWithAMemoryLimitIsWarnedOfOnceAndShownInHealthWhichStaysUp(String policy,
			CapturedOutput output) throws Exception {
		configure(policy, "100mb");
		try (ConfigurableApplicationContext context = start()) {
			assertThat(output).contains("WARN").contains("Redis maxmemory-policy is " + policy + " and maxmemory is set")
				.contains(WARNING)
				.contains("volatile-* policies evict keys with a TTL first, and every lock key has one")
				.contains("Set maxmemory-policy noeviction, or give locks a Redis instance of their own")
				.doesNotContain(redis.host() + ":" + redis.port());
			assertThat(output.toString().split(WARNING, -1)).as("warned once").hasSize(2);
			if (policy.startsWith("volatile-")) {
				assertThat(output).contains("(this Redis uses " + policy + ")");
			}
			String health = health(context);
			assertThat(health).contains("\"status\":\"UP\"")
				.contains("\"evictionPolicy\":\"" + policy + "\"")
				.contains("\"warning\":\"maxmemory-policy " + policy + " lets a full Redis evict a held lock");
			assertThat(context.getBean(Service.class).quick("o-1")).isEqualTo("done");
		}
	}

	@Test
	void noevictionIsNotWarnedOfAndShownInHealth(CapturedOutput output) throws Exception {
		configure("noeviction", "100mb");
		try (ConfigurableApplicationContext context = start()) {
			assertThat(output).doesNotContain(WARNING).doesNotContain("maxmemory-policy is");
			String health = health(context);
			assertThat(health).contains("\"status\":\"UP\"").contains("\"evictionPolicy\":\"noeviction\"")
				.doesNotContain("\"warning\"");
		}
	}

	@Test
	void aPolicyWithoutAMemoryLimitEvictsNothingSoIsOnlyMentioned(CapturedOutput output) throws Exception {
		configure("allkeys-lru", "0");
		try (ConfigurableApplicationContext context = start()) {
			assertThat(output).doesNotContain(WARNING)
				.contains("Redis maxmemory-policy is allkeys-lru but maxmemory is 0 (no limit)");
			String health = health(context);
			assertThat(health).contains("\"evictionPolicy\":\"allkeys-lru\"").doesNotContain("\"warning\"");
		}
	}

	@Test
	void healthShowsAPolicyChangedAfterStartUpWithoutARestart() throws Exception {
		configure("noeviction", "100mb");
		try (ConfigurableApplicationContext context = start()) {
			assertThat(health(context)).contains("\"evictionPolicy\":\"noeviction\"");
			configure("volatile-ttl", "100mb");
			assertThat(health(context)).contains("\"evictionPolicy\":\"volatile-ttl\"")
				.contains("\"warning\":\"maxmemory-policy volatile-ttl lets a full Redis evict a held lock, "
						+ "lock keys first; set maxmemory-policy noeviction\"");
		}
	}

	@Test
	void aUserThatMayNotRunInfoStillStartsWithTheReasonLoggedAndAnUnknownPolicy(CapturedOutput output)
			throws Exception {
		configure("allkeys-lru", "100mb");
		try (RespClient client = redis.client()) {
			client.call("ACL", "SETUSER", "no-info", "reset", "on", ">no-info-secret", "~*", "&*", "+@all", "-info");
		}
		try (ConfigurableApplicationContext context = start("spring.data.redis.username=no-info",
				"spring.data.redis.password=no-info-secret")) {
			assertThat(output).contains("distlock could not check Redis's maxmemory-policy: INFO was denied "
					+ "(NOPERM): the Redis user may not run it")
				.doesNotContain(WARNING)
				.doesNotContain("no-info-secret");
			String logLine = output.toString().lines()
				.filter((line) -> line.contains("could not check Redis's maxmemory-policy"))
				.findFirst()
				.orElseThrow();
			assertThat(output.toString().substring(output.toString().indexOf(logLine) + logLine.length()))
				.as("no stack trace after the line").doesNotStartWith(System.lineSeparator() + "org.redisson")
				.doesNotStartWith(System.lineSeparator() + "\tat ");
			String health = health(context);
			assertThat(health).contains("\"status\":\"UP\"").contains("\"evictionPolicy\":\"unknown\"")
				.doesNotContain("\"warning\"");
			assertThat(context.getBean(Service.class).quick("o-2")).isEqualTo("done");
		}
	}

}
