package io.github.distlock.benchmarks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.github.distlock.benchmarks.report.Report;
import io.github.distlock.benchmarks.report.Results;
import io.github.distlock.benchmarks.report.TargetCheck;
import io.github.distlock.benchmarks.scenarios.ContendedScenario;
import io.github.distlock.benchmarks.scenarios.FootprintScenario;
import io.github.distlock.benchmarks.scenarios.ManyKeysScenario;
import io.github.distlock.benchmarks.scenarios.RenewalScenario;
import io.github.distlock.benchmarks.scenarios.Scenario;
import io.github.distlock.benchmarks.scenarios.TwoJvmScenario;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A seconds-long run of the whole harness, so that CI notices when a system or scenario stops producing numbers, or
 * a lock library starts leaving keys behind. The numbers themselves are not judged: tiny rounds on a shared machine
 * say nothing about speed. The full run is {@code BenchmarkMain}, not a test.
 */
class BenchmarkSmokeTests {

	private static final List<String> DISTLOCK = List.of(TargetCheck.ANNOTATED, TargetCheck.ENGINE);

	@Test
	void everySystemGetsEveryMetricAndNoKeysAreLeft() {
		long start = System.nanoTime();
		Results results = BenchmarkRunner.run(BenchmarkSettings.smoke());
		Duration took = Duration.ofNanos(System.nanoTime() - start);
		System.out.println(new Report(results, BenchmarkRunner.scenarios(), BenchmarkRunner.systemNames()).plain());
		System.out.println("Smoke run took " + took.toMillis() + " ms");

		assertThat(results.notes()).as("failures during the run").noneMatch((note) -> note.startsWith("FAILED"));
		List<String> missing = new ArrayList<>();
		for (Scenario scenario : BenchmarkRunner.scenarios()) {
			for (String system : BenchmarkRunner.systemNames()) {
				for (String metric : scenario.metrics()) {
					if (results.value(scenario.name(), system, metric).isEmpty()) {
						missing.add(scenario.name() + " / " + system + " / " + metric);
					}
				}
			}
		}
		assertThat(missing).as("metrics without a number").isEmpty();
		for (String system : BenchmarkRunner.systemNames()) {
			assertThat(value(results, FootprintScenario.NAME, system, FootprintScenario.KEYS_LEFT_WITHOUT_TTL))
				.as("keys %s left that never expire", system)
				.isZero();
		}
		for (String system : DISTLOCK) {
			assertThat(value(results, FootprintScenario.NAME, system, FootprintScenario.KEYS_LEFT))
				.as("keys %s left", system)
				.isZero();
			assertThat(value(results, ContendedScenario.NAME, system, ContendedScenario.VIOLATIONS))
				.as("times two holders of %s were inside the lock at once", system)
				.isZero();
			assertThat(value(results, ManyKeysScenario.NAME, system, ManyKeysScenario.VIOLATIONS))
				.as("times two holders of one of many keys of %s were inside the lock at once", system)
				.isZero();
			assertThat(value(results, TwoJvmScenario.NAME, system, TwoJvmScenario.VIOLATIONS))
				.as("times two holders of %s in two JVMs were inside the lock at once", system)
				.isZero();
			assertThat(value(results, RenewalScenario.NAME, system, RenewalScenario.LOST))
				.as("locks %s lost while holding them", system)
				.isZero();
			// Optional for systems that do not count their own round trips, but distlock's target is judged on it.
			assertThat(results.value(RenewalScenario.NAME, system, RenewalScenario.ROUND_TRIPS))
				.as("renewal round trips counted by %s", system)
				.isPresent();
		}
	}

	private static double value(Results results, String scenario, String system, String metric) {
		return results.value(scenario, system, metric).orElseThrow();
	}

}
