package io.github.distlock.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.spring.annotation.EnableSchedulerLock;
import net.javacrumbs.shedlock.spring.annotation.SchedulerLock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import io.github.distlock.shedlock.DistLockLockProvider;
import io.github.distlock.shedlock.DistLockShedLock;
import io.github.distlock.fixtures.redis.RedisExtension;

/**
 * An application with distlock-shedlock and {@code @EnableSchedulerLock} gets ShedLock's provider on its lock engine
 * with no bean of its own: a {@code @SchedulerLock} job runs under a distlock lock with a fencing token, and a second
 * run meanwhile is skipped. On a real redis-server.
 */
class DistLockShedLockAutoConfigurationTests {

	@RegisterExtension
	static final RedisExtension redis = RedisExtension.anyServer();

	private final ApplicationContextRunner runner = LockContexts.onRedis(redis)
		.withConfiguration(AutoConfigurations.of(DistLockShedLockAutoConfiguration.class))
		.withUserConfiguration(Jobs.class);

	@Test
	void aSchedulerLockJobRunsUnderADistlockLockWithAToken() {
		this.runner.run((context) -> {
			assertThat(context.getBean(LockProvider.class)).isInstanceOf(DistLockLockProvider.class);
			Reports reports = context.getBean(Reports.class);
			ExecutorService executor = Executors.newSingleThreadExecutor();
			try {
				CountDownLatch inside = new CountDownLatch(1);
				CountDownLatch leave = new CountDownLatch(1);
				Future<Long> first = executor.submit(() -> reports.build(inside, leave));
				assertThat(inside.await(10, TimeUnit.SECONDS)).isTrue();
				assertThat(RedisKeys.locks(redis)).as("the run's lock is distlock's")
					.containsExactly("distlock:{shedlock:nightly-report}");

				assertThat(reports.build(new CountDownLatch(1), new CountDownLatch(0)))
					.as("a second run while the first holds the lock is skipped").isNull();
				assertThat(reports.runs()).isEqualTo(1);

				leave.countDown();
				assertThat(first.get(10, TimeUnit.SECONDS)).as("the run's fencing token").isPositive();
			}
			finally {
				executor.shutdownNow();
			}
		});
	}

	@Test
	void theLockNameIsAProperty() {
		this.runner.withPropertyValues("distlock.shedlock.name=billing-jobs").run((context) -> {
			CountDownLatch inside = new CountDownLatch(1);
			Reports reports = context.getBean(Reports.class);
			ExecutorService executor = Executors.newSingleThreadExecutor();
			try {
				CountDownLatch leave = new CountDownLatch(1);
				Future<Long> run = executor.submit(() -> reports.build(inside, leave));
				assertThat(inside.await(10, TimeUnit.SECONDS)).isTrue();
				assertThat(RedisKeys.locks(redis)).containsExactly("distlock:{billing-jobs:nightly-report}");
				leave.countDown();
				run.get(10, TimeUnit.SECONDS);
			}
			finally {
				executor.shutdownNow();
			}
		});
	}

	@Test
	void theApplicationsOwnProviderWinsAndThePropertyTurnsItOff() {
		this.runner.withBean("ownProvider", LockProvider.class, () -> new RefusingProvider())
			.run((context) -> assertThat(context.getBeansOfType(LockProvider.class)).containsOnlyKeys("ownProvider"));
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DistLockShedLockAutoConfiguration.class))
			.withPropertyValues(redis.springProperties())
			.run((context) -> assertThat(context).as("no engine, no provider").doesNotHaveBean(LockProvider.class));
		LockContexts.onRedis(redis)
			.withConfiguration(AutoConfigurations.of(DistLockShedLockAutoConfiguration.class))
			.withPropertyValues("distlock.shedlock.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(LockProvider.class));
	}

	@Configuration(proxyBeanMethods = false)
	@EnableSchedulerLock(interceptMode = EnableSchedulerLock.InterceptMode.PROXY_METHOD,
			defaultLockAtMostFor = "PT30S")
	static class Jobs {

		@Bean
		Reports reports() {
			return new Reports();
		}

	}

	static class Reports {

		private final AtomicInteger runs = new AtomicInteger();

		/** Through a method: the bean is a class proxy, whose own fields are not the target's. */
		public int runs() {
			return this.runs.get();
		}

		@SchedulerLock(name = "nightly-report", lockAtMostFor = "PT10S")
		public Long build(CountDownLatch inside, CountDownLatch leave) throws InterruptedException {
			this.runs.incrementAndGet();
			inside.countDown();
			assertThat(leave.await(10, TimeUnit.SECONDS)).isTrue();
			return DistLockShedLock.currentToken().orElseThrow();
		}

	}

	/** A provider of the application's own, which never locks. */
	static class RefusingProvider implements LockProvider {

		@Override
		public Optional<SimpleLock> lock(LockConfiguration lockConfiguration) {
			return Optional.empty();
		}

	}

}
