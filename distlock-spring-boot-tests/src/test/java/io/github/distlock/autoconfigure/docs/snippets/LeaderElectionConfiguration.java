package io.github.distlock.autoconfigure.docs.snippets;

import java.time.Duration;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import io.github.distlock.engine.LockEngine;
import io.github.distlock.leader.LeaderElection;
import io.github.distlock.leader.Leadership;
import io.github.distlock.leader.LeadershipListener;

/** The leader election page: a candidate as a bean, started and closed with the context. */
@Configuration(proxyBeanMethods = false)
class LeaderElectionConfiguration {

	/** The work only the leader does, fenced by its epoch. */
	interface ReportJobs {

		void startLeading(long epoch);

		void stopLeading();

	}

	@Bean(initMethod = "start")
	LeaderElection reportsElection(LockEngine engine, ReportJobs jobs) {
		return new LeaderElection(engine, "reports", Duration.ofSeconds(30), new LeadershipListener() {

			@Override
			public void granted(Leadership leadership) {
				jobs.startLeading(leadership.epoch());
			}

			@Override
			public void revoked(Leadership leadership, Revocation reason) {
				jobs.stopLeading();
			}

		});
	}

}
