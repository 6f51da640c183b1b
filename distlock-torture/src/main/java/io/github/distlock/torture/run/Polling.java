package io.github.distlock.torture.run;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Asks a question again and again until it has an answer or a deadline passes: for conditions of a lock store that
 * announce themselves nowhere (a member elected leader, a restarted member back in its ensemble), so that a fault
 * lasts exactly as long as the condition takes rather than a guessed sleep.
 */
final class Polling {

	/** Between two questions: short against an election (hundreds of milliseconds), cheap for the store. */
	private static final Duration INTERVAL = Duration.ofMillis(20);

	private Polling() {
	}

	/**
	 * The first answer the question gives within the timeout.
	 * @param what what is waited for, for the failure's message
	 * @param question empty while the condition does not hold yet (an error counts as not yet)
	 * @throws IllegalStateException when the timeout passes without an answer: a fault whose end cannot be seen
	 * must fail the run rather than let the next fault strike on top of it
	 */
	static <T> T until(String what, Duration timeout, Supplier<Optional<T>> question) throws InterruptedException {
		long deadline = System.nanoTime() + timeout.toNanos();
		while (true) {
			Optional<T> answer = question.get();
			if (answer.isPresent()) {
				return answer.get();
			}
			if (System.nanoTime() - deadline > 0) {
				throw new IllegalStateException("No " + what + " within " + timeout);
			}
			// Polling: the store announces none of this to an outsider.
			TimeUnit.NANOSECONDS.sleep(INTERVAL.toNanos());
		}
	}

}
