package io.github.distlock.autoconfigure;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import io.github.distlock.aspectj.DistributedLockAspect;
import io.github.distlock.interceptor.LockAdvisor;
import io.github.distlock.fixtures.redis.RedisExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * AspectJ mode where nothing can weave (this module's main test run has no agent): start-up fails, saying what is
 * missing, rather than leaving every locked method unlocked. Proxy mode, the default, is untouched by the aspect's
 * presence.
 */
class AspectJModeWithoutWeavingTests {

	@RegisterExtension
	static final RedisExtension redis = RedisExtension.anyServer();

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class,
				RedisLockEngineAutoConfiguration.class, DistLockAutoConfiguration.class))
		.withPropertyValues(redis.springProperties());

	@Test
	void aspectjModeWithoutAWeaverFailsStartUpNamingTheAgent() {
		this.runner.withPropertyValues("distlock.aop.mode=aspectj").run((context) -> {
			assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("no AspectJ weaver has woven DistributedLockAspect")
				.hasMessageContaining("-javaagent:");
			// Spring Boot's report: what is wrong, then what to do.
			FailureAnalysis analysis = new LockSetupFailureAnalyzer().analyze(context.getStartupFailure());
			assertThat(analysis).isNotNull();
			assertThat(analysis.getDescription()).contains("no AspectJ weaver").doesNotContain("-javaagent");
			assertThat(analysis.getAction()).startsWith("Start the JVM with -javaagent:");
		});
	}

	@Test
	void aspectjModeWithoutDistlockAspectjFailsStartUpNamingTheDependency() {
		this.runner.withPropertyValues("distlock.aop.mode=aspectj")
			.withClassLoader(new FilteredClassLoader(DistributedLockAspect.class))
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("io.github.distlock:distlock-aspectj"));
	}

	@Test
	void proxyModeIsTheDefaultAndUnwovenDistlockAspectjLeavesItAlone() {
		this.runner.run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context).hasSingleBean(LockAdvisor.class);
		});
	}

}
