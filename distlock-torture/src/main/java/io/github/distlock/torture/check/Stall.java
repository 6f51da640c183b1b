package io.github.distlock.torture.check;

/**
 * A time when a worker's JVM did not run, as the worker itself saw it (its stall watch woke this much later than
 * asked): injected pauses show here too, and so do stalls nobody injected, such as those of a loaded machine.
 *
 * @param worker the worker
 * @param fromNanos when the stall watch should have woken
 * @param toNanos when it woke
 */
public record Stall(String worker, long fromNanos, long toNanos) {

	public long lengthNanos() {
		return this.toNanos - this.fromNanos;
	}

	boolean overlaps(long fromNanos, long toNanos) {
		return this.fromNanos - toNanos <= 0 && fromNanos - this.toNanos <= 0;
	}

}
