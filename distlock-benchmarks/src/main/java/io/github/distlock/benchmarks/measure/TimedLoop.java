package io.github.distlock.benchmarks.measure;

import java.time.Duration;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * One thread running an operation again and again until a time or a count runs out, timing each run: the loop of
 * the single-thread scenarios. Each run's argument is made before its clock starts, so only the operation is timed.
 */
public final class TimedLoop {

	private TimedLoop() {
	}

	/**
	 * @param time how long to loop
	 * @param limit the most runs, whatever the time
	 * @param arguments makes the argument of the next run
	 * @param operation the run itself
	 */
	public static <T> Result run(Duration time, long limit, Supplier<T> arguments, Consumer<T> operation) {
		Samples samples = new Samples();
		long start = System.nanoTime();
		long deadline = start + time.toNanos();
		long end = start;
		while (end < deadline && samples.size() < limit) {
			T argument = arguments.get();
			long before = System.nanoTime();
			operation.accept(argument);
			end = System.nanoTime();
			samples.add(end - before);
		}
		return new Result(samples, end - start);
	}

	/**
	 * @param samples the duration of each run
	 * @param elapsedNanos from the start of the loop to the end of its last run, making arguments included
	 */
	public record Result(Samples samples, long elapsedNanos) {

		public double perSecond() {
			return this.samples.size() / (this.elapsedNanos / 1e9);
		}

		public double meanMicros() {
			return this.elapsedNanos / 1e3 / this.samples.size();
		}

	}

}
