package io.github.distlock.torture.run;

import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.github.distlock.torture.check.CheckReport;
import io.github.distlock.torture.check.Violation;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The whole harness with a lock known to be broken (GET then SET, not atomic; a loss detector that raises false
 * alarms) and a fence that checks no token: the checker must object, or its silence on the real lock would mean
 * nothing.
 */
class NegativeControlTests {

	@Test
	@Timeout(value = 3, unit = TimeUnit.MINUTES)
	void theCheckerCatchesABrokenLockAndAnUnfencedResource() throws Exception {
		TortureSettings settings = TortureSettings.negativeControl(RunDirectories.seed());
		CheckReport report = TortureRun.run(settings, RunDirectories.forRun(settings.name()));

		assertThat(report.counts()).as(report.render())
			.containsKeys(Violation.Kind.OVERLAP_WITHOUT_FAULT, Violation.Kind.OVERLAP_UNNOTICED,
					Violation.Kind.FENCE_OUT_OF_ORDER, Violation.Kind.LOSS_UNJUSTIFIED);
	}

}
