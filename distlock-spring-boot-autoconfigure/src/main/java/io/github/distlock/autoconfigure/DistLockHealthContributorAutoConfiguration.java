package io.github.distlock.autoconfigure;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import io.github.distlock.actuate.DistLockHealthIndicator;
import io.github.distlock.engine.CheckableLockEngine;
import io.github.distlock.engine.InspectableLockEngine;
import io.github.distlock.leader.LeaderElections;

/**
 * The {@code distlock} health contributor, unless {@code management.health.distlock.enabled=false}.
 */
@AutoConfiguration(after = DistLockAutoConfiguration.class)
@ConditionalOnClass(HealthIndicator.class)
@ConditionalOnBean({ InspectableLockEngine.class, CheckableLockEngine.class })
public final class DistLockHealthContributorAutoConfiguration {

	/** Nested, so that its condition (from the health module) is read only once that module is known present. */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnEnabledHealthIndicator("distlock")
	static class HealthIndicatorConfiguration {

		@Bean
		@ConditionalOnMissingBean(name = "distlockHealthIndicator")
		DistLockHealthIndicator distlockHealthIndicator(InspectableLockEngine engine, CheckableLockEngine store,
				DistLockProperties properties, ObjectProvider<LeaderElections> elections) {
			return new DistLockHealthIndicator(engine, store, properties.getHealth().getTimeout(),
					properties.getHealth().getMaxRenewalLag(), elections.getIfAvailable());
		}

	}

}
