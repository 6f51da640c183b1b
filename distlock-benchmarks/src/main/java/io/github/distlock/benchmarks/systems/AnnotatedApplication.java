package io.github.distlock.benchmarks.systems;

import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import io.github.distlock.autoconfigure.DistLockAutoConfiguration;
import io.github.distlock.autoconfigure.RedisLockEngineAutoConfiguration;

/**
 * A minimal application using distlock the documented way: Spring Boot's Redis settings, AOP and distlock's
 * auto-configuration, and one bean with locked methods.
 */
@Configuration(proxyBeanMethods = false)
@ImportAutoConfiguration({ DataRedisAutoConfiguration.class, AopAutoConfiguration.class,
		RedisLockEngineAutoConfiguration.class, DistLockAutoConfiguration.class })
public class AnnotatedApplication {

	@Bean
	LockedWork lockedWork() {
		return new LockedWork();
	}

	@Bean
	LostLockCounter lostLockCounter() {
		return new LostLockCounter();
	}

}
