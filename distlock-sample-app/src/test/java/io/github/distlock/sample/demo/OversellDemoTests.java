package io.github.distlock.sample.demo;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;

import io.github.distlock.sample.SampleApplication;
import io.github.distlock.fixtures.redis.RedisExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The oversell demo as a user runs it, with its two instances on one real Redis: the plain read-check-write sells
 * more than there is, the locked purchase never does.
 */
@ExtendWith(OutputCaptureExtension.class)
class OversellDemoTests {

	@RegisterExtension
	static final RedisExtension redis = RedisExtension.anyServer();

	@Test
	void withoutTheLockStockIsOversoldAndWithTheLockNever(CapturedOutput output) {
		List<ScenarioResult> results;
		try (ConfigurableApplicationContext context = new SpringApplicationBuilder(SampleApplication.class)
			.profiles(OversellDemoRunner.PROFILE)
			.run("--spring.data.redis.host=" + redis.host(), "--spring.data.redis.port=" + redis.port(),
					"--spring.datasource.url=jdbc:h2:mem:oversell-demo-tests;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000")) {
			results = context.getBean(OversellDemoRunner.class).results();
		}
		assertThat(results).hasSize(2);
		ScenarioResult unlocked = results.get(0);
		ScenarioResult locked = results.get(1);

		assertThat(unlocked.locked()).isFalse();
		assertThat(unlocked.attempts()).isEqualTo(200);
		assertThat(unlocked.errors()).isZero();
		assertThat(unlocked.oversold()).as("the unlocked path sells more than the stock").isPositive();
		assertThat(unlocked.consistent()).isFalse();

		assertThat(locked.locked()).isTrue();
		assertThat(locked.attempts()).isEqualTo(200);
		assertThat(locked.errors()).isZero();
		assertThat(locked.staleTokens()).isZero();
		assertThat(locked.oversold()).isZero();
		assertThat(locked.sold()).isEqualTo(20);
		assertThat(locked.stockLeft()).isZero();
		assertThat(locked.consistent()).isTrue();
		assertThat(locked.lockWaitP99()).isGreaterThanOrEqualTo(locked.lockWaitP50());

		assertThat(output.getOut()).contains("| mode ", "| without lock ", "| with @DistributedLock ",
				"without lock: BROKEN", "with @DistributedLock: correct, 20 orders for 20 items");
	}

	@Test
	void percentilesUseTheNearestRank() {
		long[] sorted = new long[100];
		for (int i = 0; i < sorted.length; i++) {
			sorted[i] = i + 1;
		}
		assertThat(OversellScenario.percentile(sorted, 50).toNanos()).isEqualTo(50);
		assertThat(OversellScenario.percentile(sorted, 99).toNanos()).isEqualTo(99);
		assertThat(OversellScenario.percentile(new long[] { 7 }, 99).toNanos()).isEqualTo(7);
		assertThat(OversellScenario.percentile(new long[0], 50)).isZero();
	}

}
