package io.github.distlock.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import io.github.distlock.fixtures.redis.RedisExtension;
import io.github.distlock.leader.LeaderElections;

/**
 * Two application instances that name the same election in {@code distlock.leader.elections}, on a real redis-server:
 * one leads, and when its context closes it is revoked before the other is granted a larger epoch, each as an
 * application event.
 */
class DistLockLeaderAutoConfigurationTests {

	@RegisterExtension
	static final RedisExtension redis = RedisExtension.anyServer();


	private final ApplicationContextRunner runner = LockContexts.onRedis(redis)
		.withConfiguration(AutoConfigurations.of(DistLockLeaderAutoConfiguration.class))
		.withUserConfiguration(LeadershipEvents.Recorder.class)
		.withPropertyValues("distlock.leader.elections=reports", "distlock.leader.lease=5s");


	@Test
	void oneInstanceLeadsAndTheOtherTakesOverWhenItsContextCloses() {
		LeadershipEvents.clear();
		this.runner.withPropertyValues("test.instance=a").run((a) -> {
			String granted = LeadershipEvents.next();
			assertThat(granted).startsWith("granted a ");
			LeaderElections elections = a.getBean(LeaderElections.class);
			assertThat(elections.isLeader("reports")).isTrue();
			long epoch = elections.epoch("reports").orElseThrow();
			assertThat(granted).isEqualTo("granted a " + epoch);
			this.runner.withPropertyValues("test.instance=b").run((b) -> {
				assertThat(b.getBean(LeaderElections.class).isLeader("reports")).isFalse();
				assertThat(LeadershipEvents.poll(500)).as("events while a leads").isNull();
				a.close();
				List<String> handOver = List.of(LeadershipEvents.next(), LeadershipEvents.next());
				assertThat(handOver.get(0)).isEqualTo("revoked a SHUT_DOWN " + epoch);
				assertThat(handOver.get(1)).startsWith("granted b ");
				assertThat(Long.parseLong(handOver.get(1).substring("granted b ".length()))).isGreaterThan(epoch);
				assertThat(b.getBean(LeaderElections.class).isLeader("reports")).isTrue();
			});
			assertThat(LeadershipEvents.next()).as("b's context closed").startsWith("revoked b SHUT_DOWN ");
		});
	}

	@Test
	void withNoElectionNamedTheInstanceStandsInNone() {
		LockContexts.onRedis(redis)
			.withConfiguration(AutoConfigurations.of(DistLockLeaderAutoConfiguration.class))
			.run((context) -> {
				assertThat(context.getBean(LeaderElections.class).elections()).isEmpty();
				assertThat(context.getBean(LeaderElections.class).isLeader("reports")).isFalse();
			});
	}

	@Test
	void aBadSettingFailsStartUpNamingIt() {
		this.runner.withPropertyValues("distlock.leader.lease=0s")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("distlock.leader.lease"));
	}

}
