package io.github.distlock.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.locks.Lock;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.integration.support.locks.DefaultLockRegistry;
import org.springframework.integration.support.locks.LockRegistry;

import io.github.distlock.fixtures.redis.RedisExtension;
import io.github.distlock.integration.DistLockRegistry;

/**
 * An application with distlock-spring-integration gets Spring Integration's lock registry on its lock engine with no
 * bean of its own; its own registry wins, and a property turns it off. On a real redis-server.
 */
class DistLockRegistryAutoConfigurationTests {

	@RegisterExtension
	static final RedisExtension redis = RedisExtension.anyServer();

	private final ApplicationContextRunner runner = LockContexts.onRedis(redis)
		.withConfiguration(AutoConfigurations.of(DistLockRegistryAutoConfiguration.class));

	@Test
	void theRegistrysLocksAreDistlockLocks() {
		this.runner.run((context) -> {
			LockRegistry<?> registry = context.getBean(LockRegistry.class);
			assertThat(registry).isInstanceOf(DistLockRegistry.class);
			Lock lock = registry.obtain("invoice-7");
			lock.lock();
			try {
				assertThat(RedisKeys.locks(redis)).containsExactly("distlock:{lock-registry:invoice-7}");
			}
			finally {
				lock.unlock();
			}
			assertThat(RedisKeys.locks(redis)).isEmpty();
		});
	}

	@Test
	void theLockNameIsAProperty() {
		this.runner.withPropertyValues("distlock.lock-registry.name=billing").run((context) -> {
			Lock lock = context.getBean(LockRegistry.class).obtain("invoice-7");
			assertThat(lock.tryLock()).isTrue();
			try {
				assertThat(RedisKeys.locks(redis)).containsExactly("distlock:{billing:invoice-7}");
			}
			finally {
				lock.unlock();
			}
		});
	}

	@Test
	void theApplicationsOwnRegistryWinsAndThePropertyTurnsItOff() {
		this.runner.withBean("ownRegistry", LockRegistry.class, DefaultLockRegistry::new)
			.run((context) -> assertThat(context.getBeansOfType(LockRegistry.class)).containsOnlyKeys("ownRegistry"));
		this.runner.withPropertyValues("distlock.lock-registry.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(LockRegistry.class));
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DistLockRegistryAutoConfiguration.class))
			.withPropertyValues(redis.springProperties())
			.run((context) -> assertThat(context).as("no engine, no registry").doesNotHaveBean(LockRegistry.class));
	}

}
