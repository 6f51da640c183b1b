package io.github.distlock.autoconfigure;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import io.github.distlock.DistributedLock;
import io.github.distlock.test.RedisExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A bean that calls its own locked method runs it unlocked, since no proxy sees the call: start-up warns, naming both
 * methods and the fix, whether the call is direct or a method reference; a bean that does not is not warned of.
 */
@ExtendWith(OutputCaptureExtension.class)
class SelfInvocationWarningTests {

	@RegisterExtension
	static final RedisExtension redis = RedisExtension.anyServer();

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class,
				RedisLockEngineAutoConfiguration.class, DistLockAutoConfiguration.class))
		.withPropertyValues(redis.springProperties());

	@Test
	void aBeanCallingItsOwnLockedMethodIsWarnedOfAtStartUp(CapturedOutput output) {
		this.runner.withBean(Checkout.class).withBean(Payments.class).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(output).contains("Checkout#payAll calls its locked Checkout#pay")
				.contains("Checkout#payEach calls its locked Checkout#pay")
				.contains("runs unlocked")
				.doesNotContain("Payments#");
		});
	}

	public static class Checkout {

		@DistributedLock(key = "#id")
		public void pay(String id) {
		}

		public void payAll(List<String> ids) {
			for (String id : ids) {
				pay(id);
			}
		}

		public void payEach(List<String> ids) {
			ids.forEach(this::pay);
		}

	}

	/** Calls a locked method of another bean, through its proxy: nothing to warn of. */
	public static class Payments {

		@DistributedLock(key = "#id")
		public void refund(String id) {
		}

		public void refundTwice(Checkout checkout, String id) {
			checkout.pay(id);
			refund2(id);
		}

		private void refund2(String id) {
		}

	}

}
