package io.github.distlock.autoconfigure.docs.snippets;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import io.github.distlock.engine.LockEngine;
import io.github.distlock.shedlock.DistLockLockProvider;

/** The ShedLock page: the provider as one bean, without the auto-configuration. */
@Configuration(proxyBeanMethods = false)
class ShedLockConfiguration {

	@Bean
	DistLockLockProvider lockProvider(LockEngine engine) {
		return new DistLockLockProvider(engine);
	}

}
