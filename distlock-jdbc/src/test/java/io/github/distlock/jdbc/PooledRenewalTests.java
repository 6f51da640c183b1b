package io.github.distlock.jdbc;

import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A renewal waiting for a pooled connection decides by the clock, not by which thread runs first: one whose connection
 * comes at or after the earliest deadline of its locks is not sent, even if the timer that gives it up has not run
 * (CI saw a renewal sent after the watchdog had declared its lock lost, the timer a moment behind).
 */
class PooledRenewalTests {

	@Test
	void aConnectionThatComesBeforeTheDeadlineSendsTheRenewal() {
		PooledRenewal renewal = new PooledRenewal(System.nanoTime() + TimeUnit.SECONDS.toNanos(30));
		assertThat(renewal.send()).isTrue();
		// Once under way it is sent to the end, whatever the timer does.
		renewal.giveUpUnlessSent();
		assertThat(renewal.send()).isTrue();
		assertThat(renewal.answer()).isNotDone();
	}

	@Test
	void aConnectionThatComesAtTheDeadlineSendsNothingThoughTheTimerHasNotRun() {
		PooledRenewal renewal = new PooledRenewal(System.nanoTime());
		assertThat(renewal.send()).isFalse();
		assertThat(renewal.answer()).isCompletedExceptionally();
		renewal.giveUpUnlessSent();
		assertThat(renewal.send()).as("asked again").isFalse();
	}

}
