package io.github.distlock.benchmarks.lockserver;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;
import java.util.function.ToLongFunction;

/**
 * A lock-server benchmark's table, in Markdown: per system the median round of each scenario (by its rate, so that a
 * row's numbers come from one round), and the lost locks, overlaps and timeouts of all rounds added up, so that a
 * single one shows. Below it, every system's rates as a multiple of the first system's.
 */
public final class LockServerReport {

	private final Map<String, List<UncontendedPairs.Result>> uncontended = new LinkedHashMap<>();

	private final Map<String, List<HotKeyContention.Result>> hotKey = new LinkedHashMap<>();

	private final RunLength length;

	public LockServerReport(RunLength length) {
		this.length = length;
	}

	public void add(String system, UncontendedPairs.Result result) {
		this.uncontended.computeIfAbsent(system, (name) -> new ArrayList<>()).add(result);
	}

	public void add(String system, HotKeyContention.Result result) {
		this.hotKey.computeIfAbsent(system, (name) -> new ArrayList<>()).add(result);
	}

	/**
	 * @param subject the first words of the report: which locks, on which server, how started (such as "ZooKeeper
	 * locks on one ZooKeeper 3.9.2 server in the benchmark's JVM")
	 */
	public String markdown(String subject) {
		StringBuilder out = new StringBuilder();
		out.append(String.format(Locale.ROOT, "%s, %d round(s) of %d ms per system and scenario, interleaved; "
				+ "medians of the rounds; lost, overlaps and timeouts summed over the rounds.%n%n", subject,
				this.length.rounds(), this.length.window().toMillis()));
		out.append("| system | uncontended pairs/s | pair p50 µs | pair p99 µs | requests per pair | writes per pair "
				+ "| hot key acq/s (2 instances × 4 threads) | instance A share | hand-over p50 µs | hand-over p99 µs "
				+ "| requests per hot-key acq | lost | overlaps | timeouts |\n");
		out.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
		for (String system : this.uncontended.keySet()) {
			UncontendedPairs.Result u = median(this.uncontended.get(system), UncontendedPairs.Result::rate);
			HotKeyContention.Result h = median(this.hotKey.get(system), HotKeyContention.Result::rate);
			long lost = sum(this.uncontended.get(system), UncontendedPairs.Result::lost)
					+ sum(this.hotKey.get(system), HotKeyContention.Result::lost);
			out.append(String.format(Locale.ROOT,
					"| %s | %.0f | %.0f | %.0f | %.1f | %.1f | %.0f | %.0f %% | %.0f | %.0f | %.1f | %d | %d | %d |%n",
					system, u.rate(), u.p50Micros(), u.p99Micros(), u.requests(), u.writes(), h.rate(), h.shareA(),
					h.handOverP50Micros(), h.handOverP99Micros(), h.requests(), lost,
					sum(this.hotKey.get(system), HotKeyContention.Result::overlaps),
					sum(this.hotKey.get(system), HotKeyContention.Result::timeouts)));
		}
		out.append(ratios());
		return out.toString();
	}

	/** Every other system's median rates against the first system's: "first ÷ other". */
	private String ratios() {
		List<String> systems = new ArrayList<>(this.uncontended.keySet());
		if (systems.size() < 2) {
			return "";
		}
		String first = systems.get(0);
		StringBuilder out = new StringBuilder("\n");
		for (String other : systems.subList(1, systems.size())) {
			out.append(String.format(Locale.ROOT, "%s ÷ %s: uncontended %.2f×, hot key %.2f×.%n", first, other,
					uncontendedRate(first) / uncontendedRate(other), hotKeyRate(first) / hotKeyRate(other)));
		}
		return out.toString();
	}

	private double uncontendedRate(String system) {
		return median(this.uncontended.get(system), UncontendedPairs.Result::rate).rate();
	}

	private double hotKeyRate(String system) {
		return median(this.hotKey.get(system), HotKeyContention.Result::rate).rate();
	}

	private static <T> T median(List<T> values, ToDoubleFunction<T> key) {
		List<T> sorted = new ArrayList<>(values);
		sorted.sort(Comparator.comparingDouble(key));
		return sorted.get(sorted.size() / 2);
	}

	private static <T> long sum(List<T> values, ToLongFunction<T> count) {
		return values.stream().mapToLong(count).sum();
	}

}
