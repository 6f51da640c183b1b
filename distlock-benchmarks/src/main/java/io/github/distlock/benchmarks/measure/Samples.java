package io.github.distlock.benchmarks.measure;

import java.util.Arrays;

/**
 * A growing list of measured durations in nanoseconds, with nearest-rank percentiles.
 * <p>
 * Plain arrays rather than a histogram: a round records at most a few hundred thousand values, and exact
 * percentiles of so few values are cheap to sort.
 */
public final class Samples {

	private long[] values = new long[1024];

	private int size;

	private boolean sorted = true;

	public void add(long nanos) {
		if (this.size == this.values.length) {
			this.values = Arrays.copyOf(this.values, this.size * 2);
		}
		this.values[this.size++] = nanos;
		this.sorted = false;
	}

	/** Adds every value of {@code other}, as when merging what several threads recorded. */
	public void addAll(Samples other) {
		if (this.size + other.size > this.values.length) {
			this.values = Arrays.copyOf(this.values, Math.max(this.values.length * 2, this.size + other.size));
		}
		System.arraycopy(other.values, 0, this.values, this.size, other.size);
		this.size += other.size;
		this.sorted = false;
	}

	public int size() {
		return this.size;
	}

	/** The value at or below which {@code percent} per cent of the samples lie, in microseconds; NaN if none. */
	public double percentileMicros(double percent) {
		if (this.size == 0) {
			return Double.NaN;
		}
		if (!this.sorted) {
			Arrays.sort(this.values, 0, this.size);
			this.sorted = true;
		}
		int rank = (int) Math.ceil(percent / 100.0 * this.size);
		return this.values[Math.max(0, Math.min(this.size - 1, rank - 1))] / 1000.0;
	}

}
