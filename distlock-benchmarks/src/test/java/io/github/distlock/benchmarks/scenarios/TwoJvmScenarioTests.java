package io.github.distlock.benchmarks.scenarios;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.github.distlock.benchmarks.scenarios.TwoJvmScenario.Acquisition;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.offset;

/**
 * The merge of two instances' logs into one history of the lock: what counts, what is a hand-over across JVMs, and
 * what is two holders inside at once.
 */
class TwoJvmScenarioTests {

	@Test
	void handOversAcrossJvmsAndTheirLatencyComeFromTheMergedHistory() {
		List<Acquisition> history = List.of(new Acquisition(0, 1_000, 2_000), new Acquisition(1, 5_000, 6_000),
				new Acquisition(1, 8_000, 9_000), new Acquisition(0, 10_000, 11_000),
				// entered after the window: drained, not counted
				new Acquisition(1, 200_000, 201_000));
		Map<String, Double> metrics = TwoJvmScenario.analyse(history, 0, 100_000);
		assertThat(metrics.get(TwoJvmScenario.ACQUISITIONS_PER_SECOND)).isEqualTo(4 / 100_000e-9);
		assertThat(metrics.get(TwoJvmScenario.MIN_SHARE)).isEqualTo(50.0);
		assertThat(metrics.get(TwoJvmScenario.CROSS_JVM)).isCloseTo(200.0 / 3, offset(1e-9));
		assertThat(metrics.get(TwoJvmScenario.HAND_OVER_P50)).isEqualTo(2.0);
		assertThat(metrics.get(TwoJvmScenario.HAND_OVER_P99)).isEqualTo(3.0);
		assertThat(metrics.get(TwoJvmScenario.VIOLATIONS)).isZero();
	}

	@Test
	void anAcquisitionEnteringBeforeThePreviousLeftIsAViolationEvenWhenDrained() {
		List<Acquisition> history = List.of(new Acquisition(0, 1_000, 5_000), new Acquisition(1, 4_000, 6_000),
				new Acquisition(0, 200_000, 300_000), new Acquisition(1, 250_000, 260_000));
		Map<String, Double> metrics = TwoJvmScenario.analyse(history, 0, 100_000);
		assertThat(metrics.get(TwoJvmScenario.VIOLATIONS)).isEqualTo(2.0);
	}

}
