package io.github.distlock.benchmarks.measure;

import java.util.ArrayList;
import java.util.List;

/**
 * One metric's value in each round; reported as the median, so that one disturbed round (a GC, a build elsewhere on
 * the machine) does not move the result, with the lowest and highest round beside it to show the spread.
 */
public final class Series {

	private final List<Double> values = new ArrayList<>();

	public void add(double value) {
		this.values.add(value);
	}

	public int size() {
		return this.values.size();
	}

	public double median() {
		List<Double> sorted = sorted();
		if (sorted.isEmpty()) {
			return Double.NaN;
		}
		int middle = sorted.size() / 2;
		return (sorted.size() % 2 == 1) ? sorted.get(middle) : (sorted.get(middle - 1) + sorted.get(middle)) / 2;
	}

	public double min() {
		List<Double> sorted = sorted();
		return sorted.isEmpty() ? Double.NaN : sorted.get(0);
	}

	public double max() {
		List<Double> sorted = sorted();
		return sorted.isEmpty() ? Double.NaN : sorted.get(sorted.size() - 1);
	}

	private List<Double> sorted() {
		List<Double> sorted = new ArrayList<>(this.values);
		sorted.sort(null);
		return sorted;
	}

}
