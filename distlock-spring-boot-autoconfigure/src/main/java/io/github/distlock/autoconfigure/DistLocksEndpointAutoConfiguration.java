package io.github.distlock.autoconfigure;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import io.github.distlock.actuate.DistLocksEndpoint;
import io.github.distlock.actuate.ReleasableDistLocksEndpoint;
import io.github.distlock.engine.ForceReleasableLockEngine;
import io.github.distlock.engine.InspectableLockEngine;
import io.github.distlock.leader.LeaderElections;

/**
 * The {@code distlocks} Actuator endpoint; its force-release operation only with
 * {@code distlock.endpoint.force-release=true}.
 */
@AutoConfiguration(after = DistLockAutoConfiguration.class)
@ConditionalOnClass({ Endpoint.class, ConditionalOnAvailableEndpoint.class })
@ConditionalOnBean(InspectableLockEngine.class)
public final class DistLocksEndpointAutoConfiguration {

	/** Nested, so that its condition (from Actuator) is read only once Actuator is known present. */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnAvailableEndpoint(DistLocksEndpoint.class)
	static class EndpointConfiguration {

		@Bean
		@ConditionalOnMissingBean
		@ConditionalOnBooleanProperty(name = "distlock.endpoint.force-release", havingValue = false,
				matchIfMissing = true)
		DistLocksEndpoint distLocksEndpoint(InspectableLockEngine engine, ObjectProvider<LeaderElections> elections) {
			return new DistLocksEndpoint(engine, elections.getIfAvailable());
		}

		@Bean
		@ConditionalOnMissingBean
		@ConditionalOnBooleanProperty("distlock.endpoint.force-release")
		@ConditionalOnBean(ForceReleasableLockEngine.class)
		ReleasableDistLocksEndpoint releasableDistLocksEndpoint(InspectableLockEngine engine,
				ForceReleasableLockEngine releaser, ObjectProvider<LeaderElections> elections) {
			return new ReleasableDistLocksEndpoint(engine, releaser, elections.getIfAvailable());
		}

	}

}
