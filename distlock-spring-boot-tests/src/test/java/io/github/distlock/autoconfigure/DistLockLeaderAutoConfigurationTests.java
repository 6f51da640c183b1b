package io.github.distlock.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationListener;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import io.github.distlock.fixtures.redis.RedisExtension;
import io.github.distlock.leader.LeaderElections;
import io.github.distlock.leader.LeadershipEvent;
import io.github.distlock.leader.LeadershipGrantedEvent;
import io.github.distlock.leader.LeadershipRevokedEvent;

/**
 * Two application instances that name the same election in {@code distlock.leader.elections}, on a real redis-server:
 * one leads, and when its context closes it is revoked before the other is granted a larger epoch, each as an
 * application event.
 */
class DistLockLeaderAutoConfigurationTests {

	@RegisterExtension
	static final RedisExtension redis = RedisExtension.anyServer();

	/** Every instance's events, in the order published: "granted a 17", "revoked a SHUT_DOWN 17". */
	private static final BlockingQueue<String> events = new LinkedBlockingQueue<>();

	private final ApplicationContextRunner runner = LockContexts.onRedis(redis)
		.withConfiguration(AutoConfigurations.of(DistLockLeaderAutoConfiguration.class))
		.withUserConfiguration(Recorder.class)
		.withPropertyValues("distlock.leader.elections=reports", "distlock.leader.lease=5s");

	private static String next() throws InterruptedException {
		String event = events.poll(30, TimeUnit.SECONDS);
		assertThat(event).as("a leadership event within 30 s").isNotNull();
		return event;
	}

	@Test
	void oneInstanceLeadsAndTheOtherTakesOverWhenItsContextCloses() {
		events.clear();
		this.runner.withPropertyValues("test.instance=a").run((a) -> {
			String granted = next();
			assertThat(granted).startsWith("granted a ");
			LeaderElections elections = a.getBean(LeaderElections.class);
			assertThat(elections.isLeader("reports")).isTrue();
			long epoch = elections.epoch("reports").orElseThrow();
			assertThat(granted).isEqualTo("granted a " + epoch);
			this.runner.withPropertyValues("test.instance=b").run((b) -> {
				assertThat(b.getBean(LeaderElections.class).isLeader("reports")).isFalse();
				assertThat(events.poll(500, TimeUnit.MILLISECONDS)).as("events while a leads").isNull();
				a.close();
				List<String> handOver = List.of(next(), next());
				assertThat(handOver.get(0)).isEqualTo("revoked a SHUT_DOWN " + epoch);
				assertThat(handOver.get(1)).startsWith("granted b ");
				assertThat(Long.parseLong(handOver.get(1).substring("granted b ".length()))).isGreaterThan(epoch);
				assertThat(b.getBean(LeaderElections.class).isLeader("reports")).isTrue();
			});
			assertThat(next()).as("b's context closed").startsWith("revoked b SHUT_DOWN ");
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

	/** Records each event with the instance's name. */
	@Configuration(proxyBeanMethods = false)
	static class Recorder {

		@Bean
		ApplicationListener<LeadershipEvent> leadershipRecorder(@Value("${test.instance:x}") String instance) {
			return (event) -> {
				long epoch = event.getLeadership().epoch();
				if (event instanceof LeadershipGrantedEvent) {
					events.add("granted " + instance + " " + epoch);
				}
				else if (event instanceof LeadershipRevokedEvent revoked) {
					events.add("revoked " + instance + " " + revoked.getReason() + " " + epoch);
				}
			};
		}

	}

}
