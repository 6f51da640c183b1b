package io.github.distlock.autoconfigure;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;

import io.github.distlock.engine.LockEngine;
import io.github.distlock.leader.LeaderElections;

/**
 * The elections named in {@code distlock.leader.elections}, on the application's lock engine: this instance stands in
 * each from the end of start-up to the start of shut-down, and its leadership is published as
 * {@code LeadershipGrantedEvent} and {@code LeadershipRevokedEvent}. With no election named, the bean stands in none.
 */
@AutoConfiguration(after = DistLockAutoConfiguration.class)
@ConditionalOnBean(LockEngine.class)
@EnableConfigurationProperties(DistLockProperties.class)
public final class DistLockLeaderAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	LeaderElections distLockLeaderElections(LockEngine engine, DistLockProperties properties,
			ApplicationEventPublisher events) {
		LeaderProperties leader = properties.getLeader();
		return new LeaderElections(engine, leader.getElections(), leader.getLease(), leader.getRetryPause(), events);
	}

}
