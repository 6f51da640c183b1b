package io.github.distlock.autoconfigure;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import io.github.distlock.autoconfigure.LockedServices.OrderService;
import io.github.distlock.autoconfigure.LockedServices.OrderServiceApplication;
import io.github.distlock.fixtures.redis.RespClient;
import io.github.distlock.fixtures.redis.SentinelRedis;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Spring Boot's Sentinel settings ({@code spring.data.redis.sentinel.*}) are enough: the client distlock builds from
 * them finds the master through real sentinels, and locks land on it.
 */
class SentinelSettingsIntegrationTests {

	private static SentinelRedis sentinel;

	@BeforeAll
	static void start() {
		sentinel = SentinelRedis.start();
	}

	@AfterAll
	static void stop() {
		sentinel.close();
	}

	@Test
	void locksTakenThroughSpringBootsSentinelSettingsLandOnTheMaster() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, DataRedisAutoConfiguration.class,
					RedisLockEngineAutoConfiguration.class, DistLockAutoConfiguration.class))
			.withUserConfiguration(OrderServiceApplication.class)
			.withPropertyValues("spring.data.redis.sentinel.master=" + SentinelRedis.MASTER_NAME,
					"spring.data.redis.sentinel.nodes=" + sentinel.sentinelNodes())
			.run((context) -> {
				assertThat(context).hasNotFailed();
				String seen = context.getBean(OrderService.class).shared("via-sentinel", () -> {
					try (RespClient master = sentinel.masterClient()) {
						return master.get("distlock:{shared:via-sentinel}");
					}
				});
				assertThat(seen).as("the lock, read on the master while held").isNotNull();
				try (RespClient master = sentinel.masterClient()) {
					assertThat(master.lockKeys("distlock:*")).as("released").isEmpty();
				}
			});
	}

}
