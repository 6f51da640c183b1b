package io.github.distlock.benchmarks.report;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;

import io.github.distlock.benchmarks.measure.Series;

/**
 * Everything one run measured, by scenario, system and metric, in the order it was measured; plus free-text details,
 * notes about anything unexpected, and the environment the run happened in.
 */
public final class Results {

	private final Map<String, Map<String, Map<String, Value>>> values = new LinkedHashMap<>();

	private final Map<String, Map<String, Map<String, List<String>>>> details = new LinkedHashMap<>();

	private final List<String> notes = Collections.synchronizedList(new ArrayList<>());

	private final Map<String, String> environment = new LinkedHashMap<>();

	public synchronized void put(String scenario, String system, String metric, double value) {
		put(scenario, system, metric, new Value(value, Double.NaN, Double.NaN));
	}

	/** Records the median of the rounds, keeping the lowest and highest round as the spread. */
	public synchronized void put(String scenario, String system, String metric, Series rounds) {
		put(scenario, system, metric, new Value(rounds.median(), rounds.min(), rounds.max()));
	}

	private void put(String scenario, String system, String metric, Value value) {
		this.values.computeIfAbsent(scenario, (s) -> new LinkedHashMap<>())
			.computeIfAbsent(system, (s) -> new LinkedHashMap<>())
			.put(metric, value);
	}

	public synchronized OptionalDouble value(String scenario, String system, String metric) {
		Value value = this.values.getOrDefault(scenario, Map.of()).getOrDefault(system, Map.of()).get(metric);
		return (value != null && Double.isFinite(value.value())) ? OptionalDouble.of(value.value())
				: OptionalDouble.empty();
	}

	public synchronized Value get(String scenario, String system, String metric) {
		return this.values.getOrDefault(scenario, Map.of()).getOrDefault(system, Map.of()).get(metric);
	}

	/** Adds a piece of free text under a label, for a system in a scenario: "label: first; second". */
	public synchronized void detail(String scenario, String system, String label, String text) {
		this.details.computeIfAbsent(scenario, (s) -> new LinkedHashMap<>())
			.computeIfAbsent(system, (s) -> new LinkedHashMap<>())
			.computeIfAbsent(label, (l) -> new ArrayList<>())
			.add(text);
	}

	/** Each system's details in a scenario, as one line per system. */
	public synchronized Map<String, String> details(String scenario) {
		Map<String, String> lines = new LinkedHashMap<>();
		this.details.getOrDefault(scenario, Map.of()).forEach((system, labels) -> {
			StringBuilder line = new StringBuilder();
			labels.forEach((label, texts) -> line.append((line.length() > 0) ? " | " : "")
				.append(label)
				.append(": ")
				.append(String.join("; ", texts)));
			lines.put(system, line.toString());
		});
		return lines;
	}

	public void note(String text) {
		this.notes.add(text);
	}

	public List<String> notes() {
		synchronized (this.notes) {
			return List.copyOf(this.notes);
		}
	}

	public synchronized void environment(String name, String value) {
		this.environment.put(name, value);
	}

	public synchronized Map<String, String> environment() {
		return new LinkedHashMap<>(this.environment);
	}

	/**
	 * One reported number.
	 *
	 * @param value the median over rounds, or the single measurement
	 * @param low the lowest round, NaN when not measured in rounds
	 * @param high the highest round, NaN when not measured in rounds
	 */
	public record Value(double value, double low, double high) {

		public boolean hasSpread() {
			return Double.isFinite(this.low) && Double.isFinite(this.high);
		}

	}

}
