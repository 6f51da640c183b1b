package io.github.distlock.benchmarks.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.OptionalDouble;
import java.util.function.DoubleFunction;

import io.github.distlock.benchmarks.scenarios.ContendedScenario;
import io.github.distlock.benchmarks.scenarios.FootprintScenario;
import io.github.distlock.benchmarks.scenarios.ManyKeysScenario;
import io.github.distlock.benchmarks.scenarios.ParallelScenario;
import io.github.distlock.benchmarks.scenarios.RenewalScenario;
import io.github.distlock.benchmarks.scenarios.StructureScenario;
import io.github.distlock.benchmarks.scenarios.TryLockScenario;
import io.github.distlock.benchmarks.scenarios.UncontendedScenario;
import io.github.distlock.benchmarks.systems.RedissonLockSystem;

/**
 * Compares distlock's results with the goals of issues 6 and 17 and says, for each, whether it is met and by how
 * much it is missed. A goal without a measurement counts as missed.
 */
public final class TargetCheck {

	public static final String ANNOTATED = "distlock-annotated";

	public static final String ENGINE = "distlock-engine";

	private static final List<String> DISTLOCK = List.of(ANNOTATED, ENGINE);

	private static final String REDISSON = RedissonLockSystem.NAME;

	/** The other libraries: "the best peer" of a row is whichever of them did best in it. */
	private static final List<String> PEERS = List.of(REDISSON, "si-registry-spin", "si-registry-pubsub");

	private final Results results;

	private final List<Outcome> outcomes = new ArrayList<>();

	private TargetCheck(Results results) {
		this.results = results;
	}

	public static List<Outcome> evaluate(Results results) {
		TargetCheck check = new TargetCheck(results);
		check.evaluate();
		return List.copyOf(check.outcomes);
	}

	private void evaluate() {
		for (String system : DISTLOCK) {
			exactly("uncontended lock+unlock: exactly 2 round trips", system, StructureScenario.NAME,
					StructureScenario.ROUND_TRIPS, 2);
			atMost("uncontended lock+unlock: ≤ 6 Redis commands", system, StructureScenario.NAME,
					StructureScenario.COMMANDS, 6);
		}
		ratioAtMost("pair time (mean) ≤ 1.10× Redisson's", ANNOTATED, UncontendedScenario.NAME,
				UncontendedScenario.MEAN, 1.10);
		ratioAtMost("pair time (mean) ≤ 1.0× Redisson's", ENGINE, UncontendedScenario.NAME, UncontendedScenario.MEAN,
				1.0);
		for (String system : DISTLOCK) {
			ratioAtLeast("hot key: ≥ 1.5× Redisson's throughput", system, ContendedScenario.NAME,
					ContendedScenario.ACQUISITIONS_PER_SECOND, 1.5);
			shares(system);
			atLeast("hot key: ≥ 50 % of hand-overs to another client", system, ContendedScenario.NAME,
					ContendedScenario.CROSS_CLIENT, 50);
			atMost("hot key: ≤ 2.5 script calls per acquisition", system, ContendedScenario.NAME,
					ContendedScenario.SCRIPT_CALLS, 2.5);
			ratioBelow("hot key: hand-over p99 lower than Redisson's", system, ContendedScenario.NAME,
					ContendedScenario.HAND_OVER_P99);
			exactly("failed try-lock: one round trip", system, StructureScenario.NAME,
					StructureScenario.FAILED_TRY_ROUND_TRIPS, 1);
			renewal(system);
			exactly("zero keys left after the run", system, FootprintScenario.NAME, FootprintScenario.KEYS_LEFT, 0);
			ratioAtMost("Redis memory per held lock ≤ Redisson's", system, RenewalScenario.NAME,
					RenewalScenario.MEMORY, 1.0);
			bestPeer("distinct keys, 16 threads: ≥ 1.0× the best peer's rate", system, ParallelScenario.NAME,
					ParallelScenario.PAIRS_PER_SECOND);
			bestPeer("failed try-lock: ≥ 1.0× the best peer's rate", system, TryLockScenario.NAME,
					TryLockScenario.OPS_PER_SECOND);
			bestPeer("many keys: ≥ 1.0× the best peer's rate", system, ManyKeysScenario.NAME,
					ManyKeysScenario.ACQUISITIONS_PER_SECOND);
		}
		closeToEngine(UncontendedScenario.NAME, UncontendedScenario.PAIRS_PER_SECOND);
		closeToEngine(ParallelScenario.NAME, ParallelScenario.PAIRS_PER_SECOND);
		closeToEngine(ContendedScenario.NAME, ContendedScenario.ACQUISITIONS_PER_SECOND);
		closeToEngine(TryLockScenario.NAME, TryLockScenario.OPS_PER_SECOND);
		closeToEngine(ManyKeysScenario.NAME, ManyKeysScenario.ACQUISITIONS_PER_SECOND);
	}

	/** A rate at least the highest any other library reached in the same run. */
	private void bestPeer(String target, String system, String scenario, String metric) {
		OptionalDouble value = value(scenario, system, metric);
		String best = null;
		for (String peer : PEERS) {
			OptionalDouble rate = value(scenario, peer, metric);
			if (rate.isPresent() && (best == null || rate.getAsDouble() > value(scenario, best, metric).getAsDouble())) {
				best = peer;
			}
		}
		if (value.isEmpty() || best == null) {
			missing(target, system);
			return;
		}
		double ratio = value.getAsDouble() / value(scenario, best, metric).getAsDouble();
		compare(target, system, OptionalDouble.of(ratio), 1.0, false, Numbers::ratio, " of " + best);
	}

	/** The annotated call's rate within 5 % of the engine's: what the proxy and key evaluation may cost. */
	private void closeToEngine(String scenario, String metric) {
		OptionalDouble annotated = value(scenario, ANNOTATED, metric);
		OptionalDouble engine = value(scenario, ENGINE, metric);
		String target = scenario + ": annotated ≥ 0.95× the engine's rate";
		if (annotated.isEmpty() || engine.isEmpty() || engine.getAsDouble() == 0) {
			missing(target, ANNOTATED);
			return;
		}
		compare(target, ANNOTATED, OptionalDouble.of(annotated.getAsDouble() / engine.getAsDouble()), 0.95, false,
				Numbers::ratio, " (" + metric + ")");
	}

	private void exactly(String target, String system, String scenario, String metric, double expected) {
		OptionalDouble value = value(scenario, system, metric);
		if (value.isEmpty()) {
			missing(target, system);
			return;
		}
		double measured = value.getAsDouble();
		boolean met = Math.abs(measured - expected) < 1e-9;
		add(target, system, Numbers.format(measured), met,
				met ? "" : "off by " + Numbers.format(measured - expected));
	}

	private void atMost(String target, String system, String scenario, String metric, double limit) {
		compare(target, system, value(scenario, system, metric), limit, true, Numbers::format, "");
	}

	private void atLeast(String target, String system, String scenario, String metric, double limit) {
		compare(target, system, value(scenario, system, metric), limit, false, Numbers::format, "");
	}

	private void ratioAtMost(String target, String system, String scenario, String metric, double limit) {
		compare(target, system, ratio(scenario, system, metric), limit, true, Numbers::ratio, " (" + metric + ")");
	}

	private void ratioAtLeast(String target, String system, String scenario, String metric, double limit) {
		compare(target, system, ratio(scenario, system, metric), limit, false, Numbers::ratio, " (" + metric + ")");
	}

	/**
	 * Holds a value against a limit it must not exceed ({@code upper}) or fall below, and says by how much it misses.
	 * @param format how values and the gap are written
	 * @param label what follows the measured value, such as the metric a ratio is of
	 */
	private void compare(String target, String system, OptionalDouble value, double limit, boolean upper,
			DoubleFunction<String> format, String label) {
		if (value.isEmpty()) {
			missing(target, system);
			return;
		}
		double measured = value.getAsDouble();
		boolean met = upper ? measured <= limit : measured >= limit;
		String gap = (upper ? "over by " : "short by ") + format.apply(Math.abs(measured - limit))
				+ percent(measured, limit);
		add(target, system, format.apply(measured) + label, met, met ? "" : gap);
	}

	private void ratioBelow(String target, String system, String scenario, String metric) {
		OptionalDouble ratio = ratio(scenario, system, metric);
		if (ratio.isEmpty()) {
			missing(target, system);
			return;
		}
		double measured = ratio.getAsDouble();
		boolean met = measured < 1.0;
		String values = Numbers.format(value(scenario, system, metric).getAsDouble()) + " vs "
				+ Numbers.format(value(scenario, REDISSON, metric).getAsDouble());
		add(target, system, Numbers.ratio(measured) + " (" + values + ")", met,
				met ? "" : "slower by " + Numbers.ratio(measured - 1) + percent(measured, 1));
	}

	private void shares(String system) {
		String target = "hot key: each client 15–35 % of acquisitions";
		OptionalDouble min = value(ContendedScenario.NAME, system, ContendedScenario.MIN_SHARE);
		OptionalDouble max = value(ContendedScenario.NAME, system, ContendedScenario.MAX_SHARE);
		if (min.isEmpty() || max.isEmpty()) {
			missing(target, system);
			return;
		}
		boolean met = min.getAsDouble() >= 15 && max.getAsDouble() <= 35;
		String gap = "";
		if (!met) {
			gap = (min.getAsDouble() < 15) ? "lowest share " + Numbers.format(15 - min.getAsDouble()) + " points under"
					: "";
			if (max.getAsDouble() > 35) {
				gap += (gap.isEmpty() ? "" : ", ") + "highest share " + Numbers.format(max.getAsDouble() - 35)
						+ " points over";
			}
		}
		add(target, system, Numbers.format(min.getAsDouble()) + "–" + Numbers.format(max.getAsDouble()) + " %", met,
				gap);
	}

	/**
	 * Judged on the client's own count of renewal round trips, since Redis cannot tell script calls sent together
	 * from ones sent one after another; the script calls are shown beside it.
	 */
	private void renewal(String system) {
		String target = "renewal: O(1) round trips per tick (N vs N/10 ≤ 1.5×)";
		OptionalDouble growth = value(RenewalScenario.NAME, system, RenewalScenario.ROUND_TRIP_GROWTH);
		OptionalDouble large = value(RenewalScenario.NAME, system, RenewalScenario.ROUND_TRIPS);
		OptionalDouble small = value(RenewalScenario.NAME, system, RenewalScenario.ROUND_TRIPS_SMALL);
		OptionalDouble calls = value(RenewalScenario.NAME, system, RenewalScenario.SCRIPT_CALLS);
		if (growth.isEmpty() || large.isEmpty() || small.isEmpty() || calls.isEmpty()) {
			missing(target, system);
			return;
		}
		boolean met = growth.getAsDouble() <= 1.5;
		add(target, system, Numbers.format(large.getAsDouble()) + " per interval at N, "
				+ Numbers.format(small.getAsDouble()) + " at N/10 (" + Numbers.ratio(growth.getAsDouble()) + "); "
				+ Numbers.format(calls.getAsDouble()) + " script calls per interval at N", met,
				met ? "" : "grows " + Numbers.ratio(growth.getAsDouble()) + " for 10× the locks");
	}

	private OptionalDouble value(String scenario, String system, String metric) {
		return this.results.value(scenario, system, metric);
	}

	private OptionalDouble ratio(String scenario, String system, String metric) {
		OptionalDouble value = value(scenario, system, metric);
		OptionalDouble base = value(scenario, REDISSON, metric);
		if (value.isEmpty() || base.isEmpty() || base.getAsDouble() == 0) {
			return OptionalDouble.empty();
		}
		return OptionalDouble.of(value.getAsDouble() / base.getAsDouble());
	}

	private static String percent(double measured, double limit) {
		return (limit == 0) ? "" : String.format(Locale.ROOT, " (%+.0f %%)", 100 * (measured - limit) / limit);
	}

	private void missing(String target, String system) {
		add(target, system, "not measured", false, "no measurement");
	}

	private void add(String target, String system, String measured, boolean met, String gap) {
		this.outcomes.add(new Outcome(target, system, measured, met, gap));
	}

	/**
	 * @param target the goal
	 * @param system which distlock entry point
	 * @param measured what was measured
	 * @param met whether the goal is reached
	 * @param gap by how much it is missed, empty when met
	 */
	public record Outcome(String target, String system, String measured, boolean met, String gap) {
	}

}
