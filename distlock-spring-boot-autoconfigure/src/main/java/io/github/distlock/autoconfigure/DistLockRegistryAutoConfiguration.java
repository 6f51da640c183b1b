package io.github.distlock.autoconfigure;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.integration.support.locks.LockRegistry;

import io.github.distlock.engine.LockEngine;
import io.github.distlock.integration.DistLockRegistry;

/**
 * Spring Integration's {@link LockRegistry} on the application's lock engine, when {@code distlock-spring-integration}
 * is on the class path and the application defines no registry of its own: aggregators, leader initiators and other
 * users of a lock registry then lock through distlock. Its locks are named {@code distlock.lock-registry.name} and
 * leased for {@code distlock.lease}, renewed while held. {@code distlock.lock-registry.enabled=false} leaves the choice
 * to the application.
 */
@AutoConfiguration(after = DistLockAutoConfiguration.class)
@ConditionalOnClass({ LockRegistry.class, DistLockRegistry.class })
@ConditionalOnBooleanProperty(name = "distlock.lock-registry.enabled", matchIfMissing = true)
@ConditionalOnBean(LockEngine.class)
@EnableConfigurationProperties(DistLockProperties.class)
public final class DistLockRegistryAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean(LockRegistry.class)
	DistLockRegistry distLockRegistry(LockEngine engine, DistLockProperties properties) {
		return new DistLockRegistry(engine, properties.getLockRegistry().getName(), properties.getLease());
	}

}
