package io.github.distlock.benchmarks.lockserver;

import java.time.Duration;

/**
 * How long a lock-server benchmark measures: every system runs every scenario once per round for the window (after
 * a warm-up of a third of it), the systems interleaved round by round.
 */
public record RunLength(Duration window, int rounds) {

	/** The documented run: three rounds of three seconds. */
	public static final RunLength FULL = new RunLength(Duration.ofSeconds(3), 3);

	/** The short mode ({@code --smoke}): one round of half a second, enough to prove every system runs. */
	public static final RunLength SMOKE = new RunLength(Duration.ofMillis(500), 1);

}
