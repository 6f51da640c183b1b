package io.github.distlock.autoconfigure;

import io.micrometer.observation.ObservationRegistry;
import net.javacrumbs.shedlock.core.LockProvider;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

import io.github.distlock.engine.LockEngine;
import io.github.distlock.shedlock.DistLockLockProvider;

/**
 * ShedLock's {@link LockProvider} on the application's lock engine, when {@code distlock-shedlock} is on the class
 * path and the application defines no provider of its own: {@code @SchedulerLock} jobs then lock through distlock
 * with nothing but {@code @EnableSchedulerLock}. {@code distlock.shedlock.enabled=false} leaves the choice to the
 * application. Runs are observed in the application's {@link ObservationRegistry}, so they count in distlock's
 * meters as annotated calls do.
 */
@AutoConfiguration(after = DistLockAutoConfiguration.class)
@ConditionalOnClass({ LockProvider.class, DistLockLockProvider.class })
@ConditionalOnBooleanProperty(name = "distlock.shedlock.enabled", matchIfMissing = true)
@ConditionalOnBean(LockEngine.class)
@EnableConfigurationProperties(DistLockProperties.class)
public final class DistLockShedLockAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean(LockProvider.class)
	DistLockLockProvider distLockShedLockProvider(LockEngine engine, DistLockProperties properties,
			ObjectProvider<ObservationRegistry> observationRegistry) {
		return new DistLockLockProvider(engine, properties.getShedlock().getName(),
				observationRegistry.getIfUnique(() -> ObservationRegistry.NOOP));
	}

}
