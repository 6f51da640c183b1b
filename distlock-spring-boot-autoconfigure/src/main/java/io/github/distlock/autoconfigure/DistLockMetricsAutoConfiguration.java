package io.github.distlock.autoconfigure;

import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

import io.github.distlock.actuate.DistLockMeterBinder;
import io.github.distlock.actuate.LostLockMeter;
import io.github.distlock.engine.InspectableLockEngine;
import io.github.distlock.interceptor.LockOperation;
import io.github.distlock.interceptor.LockOperationSource;

/**
 * Micrometer meters for the lock engine and lost locks. The timers of waiting and holding come from the
 * interceptor's observations, through whatever observation handlers the application has.
 */
@AutoConfiguration(after = DistLockAutoConfiguration.class,
		afterName = { "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
				"org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration" })
@ConditionalOnClass(MeterRegistry.class)
@ConditionalOnBean({ MeterRegistry.class, InspectableLockEngine.class })
public final class DistLockMetricsAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	DistLockMeterBinder distLockMeterBinder(InspectableLockEngine engine) {
		return new DistLockMeterBinder(engine);
	}

	@Bean
	@ConditionalOnMissingBean
	LostLockMeter lostLockMeter(MeterRegistry registry, ObjectProvider<LockOperationSource> operations) {
		return new LostLockMeter(registry, () -> operations.stream()
			.flatMap((source) -> source.parsedOperations().stream())
			.map(LockOperation::name)
			.distinct()
			.toList());
	}

}
