package io.github.distlock.benchmarks.report;

import java.util.Locale;

/**
 * Formats measured numbers with as many digits as their noise deserves.
 */
public final class Numbers {

	private Numbers() {
	}

	public static String format(double value) {
		if (!Double.isFinite(value)) {
			return "n/a";
		}
		double magnitude = Math.abs(value);
		if (value == Math.rint(value) && magnitude < 1e15) {
			return String.format(Locale.ROOT, "%,d", (long) value);
		}
		if (magnitude >= 100) {
			return String.format(Locale.ROOT, "%,.0f", value);
		}
		if (magnitude >= 10) {
			return String.format(Locale.ROOT, "%.1f", value);
		}
		return String.format(Locale.ROOT, "%.2f", value);
	}

	public static String ratio(double value) {
		return Double.isFinite(value) ? String.format(Locale.ROOT, "%.2f×", value) : "n/a";
	}

}
