package io.github.distlock.sample.embedded;

import java.io.UncheckedIOException;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.support.GenericApplicationContext;

import io.github.distlock.sample.SampleApplication;
import io.github.distlock.sample.shop.Purchase;
import io.github.distlock.sample.shop.StockService;
import io.github.distlock.fixtures.redis.RedisExtension;
import io.github.distlock.fixtures.redis.RespClient;
import io.github.distlock.testing.redis.EmbeddedRedisServer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The sample's own Redis: started when the user configured none, and only then. (Finding and running the binary is
 * distlock-test's, and tested there.)
 */
class EmbeddedRedisTests {

	@RegisterExtension
	static final RedisExtension redis = RedisExtension.anyServer();

	@Test
	void startsARealRedisWhenNothingIsConfiguredAndStopsItWithTheApplication() {
		EmbeddedRedisServer server;
		try (ConfigurableApplicationContext context = run("embedded-started")) {
			server = context.getBean(EmbeddedRedisServer.class);
			assertThat(context.getEnvironment().getProperty("spring.data.redis.host")).isEqualTo("127.0.0.1");
			assertThat(context.getEnvironment().getProperty("spring.data.redis.port", Integer.class))
				.isEqualTo(server.port());
			assertThat(childProcesses()).contains(server.pid());
			try (RespClient raw = new RespClient(server.host(), server.port())) {
				assertThat(raw.call("PING")).isEqualTo("PONG");
			}
			Purchase purchase = context.getBean(StockService.class).buy("limited-sneaker");
			assertThat(purchase.outcome()).isEqualTo(Purchase.Outcome.SOLD);
			assertThat(purchase.token()).isPositive();
		}
		assertThat(childProcesses()).doesNotContain(server.pid());
		assertThatExceptionOfType(UncheckedIOException.class)
			.isThrownBy(() -> new RespClient(server.host(), server.port()).close());
	}

	@Test
	void startsNothingWhenSpringDataRedisHostIsSet() {
		List<Long> before = childProcesses();
		try (ConfigurableApplicationContext context = run("embedded-host-set",
				"--spring.data.redis.host=" + redis.host(), "--spring.data.redis.port=" + redis.port())) {
			assertNothingStarted(context, before);
			assertThat(context.getEnvironment().getProperty("spring.data.redis.port", Integer.class))
				.isEqualTo(redis.port());
			assertThat(context.getBean(StockService.class).buy("limited-sneaker").outcome())
				.isEqualTo(Purchase.Outcome.SOLD);
		}
	}

	@Test
	void startsNothingWhenTheApplicationDefinesItsOwnRedissonClient() {
		List<Long> before = childProcesses();
		ApplicationContextInitializer<ConfigurableApplicationContext> userClient = (context) -> {
			Config config = new Config();
			config.useSingleServer().setAddress(redis.url());
			((GenericApplicationContext) context).registerBean("userRedisson", RedissonClient.class,
					() -> Redisson.create(config), (definition) -> definition.setDestroyMethodName("shutdown"));
		};
		try (ConfigurableApplicationContext context = app().initializers(userClient)
			.run(dataSource("embedded-user-client"))) {
			assertNothingStarted(context, before);
			assertThat(context.getBean(StockService.class).buy("limited-sneaker").outcome())
				.isEqualTo(Purchase.Outcome.SOLD);
		}
	}

	@Test
	void startsNothingWhenSwitchedOff() {
		List<Long> before = childProcesses();
		// distlock is switched off too, so that the application starts without any Redis.
		try (ConfigurableApplicationContext context = run("embedded-off",
				"--" + EmbeddedRedisInitializer.ENABLED_PROPERTY + "=false", "--distlock.enabled=false")) {
			assertNothingStarted(context, before);
			assertThat(context.getEnvironment().getProperty("spring.data.redis.host")).isNull();
		}
	}

	private static void assertNothingStarted(ConfigurableApplicationContext context, List<Long> before) {
		assertThat(context.getBeansOfType(EmbeddedRedisServer.class)).isEmpty();
		assertThat(context.getEnvironment().getPropertySources().contains(EmbeddedRedisStarter.PROPERTY_SOURCE_NAME))
			.isFalse();
		assertThat(childProcesses()).isEqualTo(before);
	}

	private static ConfigurableApplicationContext run(String database, String... args) {
		String[] all = new String[args.length + 1];
		all[0] = dataSource(database);
		System.arraycopy(args, 0, all, 1, args.length);
		return app().run(all);
	}

	private static SpringApplicationBuilder app() {
		return new SpringApplicationBuilder(SampleApplication.class).web(WebApplicationType.NONE);
	}

	private static String dataSource(String database) {
		return "--spring.datasource.url=jdbc:h2:mem:" + database + ";DB_CLOSE_DELAY=-1";
	}

	/**
	 * The processes this JVM has started and that still run: the test's own Redis, and the sample's when it started
	 * one. (By pid, not by name: Debian's redis-server is a link to a binary with another name.)
	 */
	private static List<Long> childProcesses() {
		return ProcessHandle.current().children().filter(ProcessHandle::isAlive).map(ProcessHandle::pid).sorted().toList();
	}

}
