package io.github.distlock.torture.worker;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

import io.github.distlock.leader.LeaderElections;
import io.github.distlock.torture.history.HistoryWriter;

/**
 * A worker is an ordinary non-web Spring Boot application with the starter on its class path: auto-configuration
 * reads {@code spring.data.redis.*} and applies {@code @DistributedLock} to {@link CriticalSection}.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
@EnableConfigurationProperties(WorkerProperties.class)
public class WorkerApplication {

	@Bean(destroyMethod = "close")
	WorkerHistory workerHistory(WorkerProperties properties) {
		return new WorkerHistory(properties.worker(), new HistoryWriter(properties.history()));
	}

	@Bean(initMethod = "start", destroyMethod = "close")
	StallWatch stallWatch(WorkerHistory history) {
		return new StallWatch(history);
	}

	@Bean
	HistoryLostListener historyLostListener(WorkerHistory history) {
		return new HistoryLostListener(history);
	}

	@Bean
	SectionBody sectionBody(WorkerHistory history, WorkerProperties properties) {
		return new SectionBody(history, properties.fenceChecked());
	}

	@Bean
	CriticalSection criticalSection(SectionBody body) {
		return new CriticalSection(body);
	}

	@Bean
	LockedCall lockedCall(WorkerProperties properties, CriticalSection criticalSection, SectionBody body,
			WorkerHistory history, Environment environment, ObjectProvider<LeaderCall> leaderCall) {
		if (properties.lockMode() == WorkerProperties.LockMode.LEADER) {
			return leaderCall.getObject();
		}
		if (properties.lockMode() == WorkerProperties.LockMode.BROKEN) {
			int redisPort = environment.getRequiredProperty("spring.data.redis.port", Integer.class);
			return new BrokenLockCall(body, history, redisPort, properties.lease(), properties.waitTime());
		}
		return criticalSection::run;
	}

	/**
	 * The leader's work, a bean as an application would declare it; only in the leader mode, since a bean with a
	 * {@code @LeaderOnly} method makes its application stand in the election.
	 */
	@Bean
	@ConditionalOnProperty(name = "torture.lock-mode", havingValue = "leader")
	LeaderSection leaderSection(SectionBody body, LeaderElections elections) {
		return new LeaderSection(body, elections);
	}

	@Bean
	@ConditionalOnProperty(name = "torture.lock-mode", havingValue = "leader")
	LeaderCall leaderCall(LeaderSection section, LeaderElections elections, WorkerHistory history,
			WorkerProperties properties) {
		return new LeaderCall(section, elections, history, properties.waitTime(), properties.lease());
	}

	@Bean
	LoadLoop loadLoop(WorkerProperties properties, LockedCall lockedCall, WorkerHistory history) {
		return new LoadLoop(properties, lockedCall, history);
	}

}
