package io.github.distlock.autoconfigure;

import java.util.List;
import java.util.function.Supplier;

import io.micrometer.observation.ObservationRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.beans.factory.config.EmbeddedValueResolver;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Role;
import org.springframework.core.env.Environment;
import org.springframework.util.function.SingletonSupplier;

import io.github.distlock.engine.LockEngine;
import io.github.distlock.interceptor.LeaderOnlyAdvisor;
import io.github.distlock.interceptor.LeaderOnlyInterceptor;
import io.github.distlock.interceptor.LeaderOnlySource;
import io.github.distlock.leader.LeaderElections;

/**
 * The elections named in {@code distlock.leader.elections} or by {@code @LeaderOnly} methods, on the application's
 * lock engine: this instance stands in each from the end of start-up to the start of shut-down, and its leadership
 * is published as {@code LeadershipGrantedEvent} and {@code LeadershipRevokedEvent}. {@code @LeaderOnly} methods run
 * where this instance leads their election and are skipped elsewhere.
 */
@AutoConfiguration(after = DistLockAutoConfiguration.class)
@ConditionalOnBean(LockEngine.class)
@EnableConfigurationProperties(DistLockProperties.class)
public final class DistLockLeaderAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	LeaderElections distLockLeaderElections(LockEngine engine, DistLockProperties properties,
			ApplicationEventPublisher events, ObjectProvider<LeaderOnlySource> leaderOnly) {
		LeaderProperties leader = properties.getLeader();
		LeaderOnlySource declared = leaderOnly.getIfAvailable();
		return new LeaderElections(engine, leader.getElections(), (declared != null) ? declared::elections : List::of,
				leader.getLease(), leader.getRetryPause(), events);
	}

	/** The {@code @LeaderOnly} declarations, read as the advisor meets the beans' methods. */
	@Bean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	@ConditionalOnMissingBean
	static LeaderOnlySource leaderOnlySource(Environment environment, ConfigurableBeanFactory beanFactory) {
		return new LeaderOnlySource(DistLockAutoConfiguration.bindEarly(environment).getOnLost(),
				new EmbeddedValueResolver(beanFactory));
	}

	/**
	 * Runs {@code @LeaderOnly} methods, just outside the lock advice: a call skipped here takes no lock. Created while
	 * post-processors are registered, so it looks the elections and the registry up on the first call.
	 */
	@Bean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	@ConditionalOnMissingBean
	static LeaderOnlyAdvisor leaderOnlyAdvisor(ObjectProvider<LeaderOnlySource> operations,
			ObjectProvider<LeaderElections> elections, ObjectProvider<ObservationRegistry> observationRegistry,
			Environment environment) {
		LeaderOnlySource source = operations.getObject();
		Supplier<LeaderElections> candidate = SingletonSupplier.of(elections::getObject);
		LeaderOnlyInterceptor interceptor = new LeaderOnlyInterceptor(source, (name) -> candidate.get().election(name),
				SingletonSupplier.of(() -> observationRegistry.getIfUnique(() -> ObservationRegistry.NOOP)));
		int lockOrder = DistLockAutoConfiguration.bindEarly(environment).getAop().getOrder();
		return new LeaderOnlyAdvisor(source, interceptor, (lockOrder == Integer.MIN_VALUE) ? lockOrder : lockOrder - 1);
	}

}
