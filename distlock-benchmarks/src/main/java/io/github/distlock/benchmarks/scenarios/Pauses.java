package io.github.distlock.benchmarks.scenarios;

import java.time.Duration;

/**
 * Letting time pass where there is nothing to wait on: renewal ticks to come, a holder to settle.
 */
final class Pauses {

	private Pauses() {
	}

	static void sleep(Duration time) {
		try {
			Thread.sleep(time.toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

}
