package io.github.distlock.autoconfigure.docs.snippets;

import java.time.Duration;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;
import org.springframework.integration.support.locks.LockRegistry;

import io.github.distlock.engine.LockEngine;
import io.github.distlock.integration.DistLockRegistry;

/** The Spring Integration page: the registry as one bean, without the auto-configuration, and a leader initiator. */
@Configuration(proxyBeanMethods = false)
class LockRegistryConfiguration {

	@Bean
	DistLockRegistry lockRegistry(LockEngine engine) {
		return new DistLockRegistry(engine, "lock-registry", Duration.ofSeconds(30));
	}

	@Bean
	LockRegistryLeaderInitiator leaderInitiator(LockRegistry<?> lockRegistry) {
		return new LockRegistryLeaderInitiator(lockRegistry);
	}

}
