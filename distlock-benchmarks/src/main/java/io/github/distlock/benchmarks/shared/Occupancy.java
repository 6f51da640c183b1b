package io.github.distlock.benchmarks.shared;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Who is inside a shared lock right now, as its holders say on entering and before leaving: readers and writers of
 * a read/write lock, or holders of a set of permits. All holders run in this JVM, so a moment with a writer beside
 * anybody else, or with more permit holders than permits, is seen by at least one of the two parties: each counts
 * itself in before it looks at the others. An acquisition that saw such a moment, entering or leaving, counts as one
 * violation.
 */
final class Occupancy {

	/** How long a holder stays inside: a tiny fixed spin, so that two holders that overlap have time to see it. */
	private static final long HOLD_NANOS = 5_000;

	private final AtomicInteger readers = new AtomicInteger();

	private final AtomicInteger writers = new AtomicInteger();

	private final AtomicInteger holders = new AtomicInteger();

	private final AtomicLong violations = new AtomicLong();

	/** Runs the inside of a read lock. */
	void read() {
		this.readers.incrementAndGet();
		boolean bad = this.writers.get() != 0;
		hold();
		bad |= this.writers.get() != 0;
		this.readers.decrementAndGet();
		count(bad);
	}

	/** Runs the inside of a write lock. */
	void write() {
		boolean bad = this.writers.incrementAndGet() != 1 || this.readers.get() != 0;
		hold();
		bad |= this.writers.get() != 1 || this.readers.get() != 0;
		this.writers.decrementAndGet();
		count(bad);
	}

	/** Runs the inside of one of {@code permits} permits. */
	void permit(int permits) {
		boolean bad = this.holders.incrementAndGet() > permits;
		hold();
		bad |= this.holders.get() > permits;
		this.holders.decrementAndGet();
		count(bad);
	}

	long violations() {
		return this.violations.get();
	}

	private void count(boolean bad) {
		if (bad) {
			this.violations.incrementAndGet();
		}
	}

	private static void hold() {
		long until = System.nanoTime() + HOLD_NANOS;
		while (System.nanoTime() - until < 0) {
			Thread.onSpinWait();
		}
	}

}
