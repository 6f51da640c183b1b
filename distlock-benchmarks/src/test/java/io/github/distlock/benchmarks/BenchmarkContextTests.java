package io.github.distlock.benchmarks;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import io.github.distlock.benchmarks.report.Results;
import io.github.distlock.benchmarks.systems.LockClient;
import io.github.distlock.benchmarks.systems.LockSystem;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A timed round that throws: a peer library's is noted and run once more, distlock's fails the run at once.
 */
class BenchmarkContextTests {

	private final Results results = new Results();

	private final BenchmarkContext context = new BenchmarkContext(BenchmarkSettings.smoke(), null, List.of(),
			this.results);

	@Test
	void aPeersRoundThatFailsOnceIsNotedWithItsCauseAndRunAgain() {
		AtomicInteger runs = new AtomicInteger();
		boolean done = this.context.attemptRound("many-keys", new NamedSystem("peer", false), () -> {
			if (runs.incrementAndGet() == 1) {
				throw new IllegalStateException("Failed to lock mutex", new IllegalArgumentException("the cause"));
			}
		});
		assertThat(done).isTrue();
		assertThat(runs).hasValue(2);
		assertThat(this.results.notes()).singleElement()
			.asString()
			.startsWith("RETRIED many-keys / peer: java.lang.IllegalStateException: Failed to lock mutex")
			.endsWith("<- java.lang.IllegalArgumentException: the cause");
	}

	@Test
	void aPeersRoundThatFailsTwiceFailsTheRun() {
		AtomicInteger runs = new AtomicInteger();
		boolean done = this.context.attemptRound("many-keys", new NamedSystem("peer", false), () -> {
			runs.incrementAndGet();
			throw new IllegalStateException("down");
		});
		assertThat(done).isFalse();
		assertThat(runs).hasValue(2);
		assertThat(this.results.notes()).extracting((note) -> note.substring(0, note.indexOf(' ')))
			.containsExactly("RETRIED", "FAILED");
	}

	@Test
	void distlocksRoundThatFailsFailsTheRunWithoutASecondChance() {
		AtomicInteger runs = new AtomicInteger();
		boolean done = this.context.attemptRound("many-keys", new NamedSystem("ours", true), () -> {
			if (runs.incrementAndGet() == 1) {
				throw new IllegalStateException("down");
			}
		});
		assertThat(done).isFalse();
		assertThat(runs).hasValue(1);
		assertThat(this.results.notes()).singleElement().asString().startsWith("FAILED many-keys / ours");
	}

	private static final class NamedSystem extends LockSystem {

		private final boolean distlock;

		NamedSystem(String name, boolean distlock) {
			super(name);
			this.distlock = distlock;
		}

		@Override
		public boolean isDistlock() {
			return this.distlock;
		}

		@Override
		protected LockClient newClient(int index) {
			throw new UnsupportedOperationException("rounds of this system run no client");
		}

		@Override
		public String keyPattern() {
			return "none:*";
		}

	}

}
