package io.github.distlock.autoconfigure;

import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.ApplicationListener;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import io.github.distlock.leader.LeadershipEvent;
import io.github.distlock.leader.LeadershipGrantedEvent;
import io.github.distlock.leader.LeadershipRevokedEvent;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The leadership events of every application instance a test starts, in the order published, each with the
 * instance's name ({@code test.instance}): "granted a 17", "revoked a SHUT_DOWN 17". A test may add marks of its own
 * between them.
 */
final class LeadershipEvents {

	private static final BlockingQueue<String> events = new LinkedBlockingQueue<>();

	private LeadershipEvents() {
	}

	/** Forgets what earlier tests' instances published. */
	static void clear() {
		events.clear();
	}

	/** Adds a mark of the test's own between the events. */
	static void mark(String mark) {
		events.add(mark);
	}

	/** The next event or mark, within 30 s. */
	static String next() throws InterruptedException {
		String event = events.poll(30, TimeUnit.SECONDS);
		assertThat(event).as("a leadership event within 30 s").isNotNull();
		return event;
	}

	/** The next event or mark if one comes within the time, or null. */
	static String poll(long millis) throws InterruptedException {
		return events.poll(millis, TimeUnit.MILLISECONDS);
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
