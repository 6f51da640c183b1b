package io.github.distlock.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.Async;
import org.springframework.scheduling.annotation.EnableAsync;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import io.github.distlock.LockContext;
import io.github.distlock.LockDefinitionException;
import io.github.distlock.LockLostException;
import io.github.distlock.ReactiveLockContext;
import io.github.distlock.actuate.DistLockHealthIndicator;
import io.github.distlock.actuate.DistLocksEndpoint;
import io.github.distlock.actuate.ElectionView;
import io.github.distlock.fixtures.redis.RedisExtension;
import io.github.distlock.fixtures.redis.RespClient;
import io.github.distlock.leader.LeaderElections;
import io.github.distlock.leader.LeaderOnly;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@code @LeaderOnly} methods in two application instances on a real redis-server, standing in the election their
 * methods name (no property lists it): the leader runs them with its epoch as the token, the other skips them with
 * nothing in each return type; a term yielded while the method runs goes to the other instance only after the method
 * returns; a leadership lost while it runs fails the call; health and the {@code distlocks} endpoint show the term.
 */
class LeaderOnlyIntegrationTests {

	@RegisterExtension
	static final RedisExtension redis = RedisExtension.anyServer();

	private static final String LOCK = "distlock:{leader:nightly}";


	private final ApplicationContextRunner runner = LockContexts.onRedis(redis)
		.withConfiguration(AutoConfigurations.of(DistLockLeaderAutoConfiguration.class,
				DistLockHealthContributorAutoConfiguration.class, DistLocksEndpointAutoConfiguration.class))
		.withUserConfiguration(LeadershipEvents.Recorder.class, NightlyJobs.class)
		.withPropertyValues("distlock.leader.lease=3s", "management.endpoints.web.exposure.include=distlocks");

	private final ExecutorService caller = Executors.newSingleThreadExecutor();

	@AfterEach
	void stopCaller() {
		this.caller.shutdownNow();
	}


	@Test
	void onlyTheLeaderRunsTheMethodsWithTheEpochAsTheirTokenAndTheOtherGetsNothing() {
		LeadershipEvents.clear();
		this.runner.withPropertyValues("test.instance=a").run((a) -> {
			assertThat(LeadershipEvents.next()).startsWith("granted a ");
			long epoch = a.getBean(LeaderElections.class).epoch("nightly").orElseThrow();
			this.runner.withPropertyValues("test.instance=b").run((b) -> {
				assertThat(b.getBean(LeaderElections.class).elections()).as("stood in for the annotation")
					.containsOnlyKeys("nightly");
				NightlyJobs leader = a.getBean(NightlyJobs.class);
				NightlyJobs other = b.getBean(NightlyJobs.class);

				assertThat(leader.run()).isNull();
				assertThat(leader.ran()).containsExactly("a " + epoch);
				assertThat(other.run()).isNull();
				assertThat(other.ran()).as("runs on the other instance").isEmpty();

				assertThat(leader.report()).contains("a " + epoch);
				assertThat(other.report()).isEmpty();
				assertThat(leader.later().get(10, TimeUnit.SECONDS)).isEqualTo("a " + epoch);
				assertThat(other.later().get(10, TimeUnit.SECONDS)).isNull();
				assertThat(leader.mono().block(Duration.ofSeconds(10))).isEqualTo("a " + epoch);
				assertThat(other.mono().block(Duration.ofSeconds(10))).isNull();
				assertThat(leader.flux().collectList().block(Duration.ofSeconds(10))).containsExactly("a " + epoch);
				assertThat(other.flux().collectList().block(Duration.ofSeconds(10))).isEmpty();
				assertThat(leader.inBackground().get(10, TimeUnit.SECONDS)).isEqualTo("a " + epoch);
				assertThat(other.inBackground().get(10, TimeUnit.SECONDS)).isNull();
				assertThat(leader.ran()).as("each led call ran once").hasSize(6);
				assertThat(other.ran()).isEmpty();
			});
		});
	}

	@Test
	void aTermYieldedWhileTheMethodRunsGoesToTheOtherInstanceOnlyAfterTheMethodReturns() {
		LeadershipEvents.clear();
		this.runner.withPropertyValues("test.instance=a").run((a) -> {
			assertThat(LeadershipEvents.next()).startsWith("granted a ");
			this.runner.withPropertyValues("test.instance=b").run((b) -> {
				NightlyJobs leader = a.getBean(NightlyJobs.class);
				Future<Optional<String>> call = this.caller.submit(leader::runUntilLetGo);
				assertThat(leader.entered().await(10, TimeUnit.SECONDS)).as("the method started").isTrue();
				assertThat(a.getBean(LeaderElections.class).yieldLeadership("nightly")).isTrue();
				assertThat(LeadershipEvents.next()).startsWith("revoked a YIELDED ");
				try (RespClient client = redis.client()) {
					assertThat(client.call("EXISTS", LOCK)).as("the lock, while the method runs").isEqualTo(1L);
				}
				assertThat(b.getBean(LeaderElections.class).isLeader("nightly")).isFalse();
				// Marked before the method returns: a grant that came earlier would come before the mark.
				LeadershipEvents.mark("method returns");
				leader.letGo().countDown();
				assertThat(call.get(10, TimeUnit.SECONDS)).as("a yield is no loss").contains("done");
				assertThat(LeadershipEvents.next()).isEqualTo("method returns");
				assertThat(LeadershipEvents.next()).startsWith("granted b ");
			});
		});
	}

	@Test
	void aLeadershipLostWhileTheMethodRunsFailsTheCall() {
		LeadershipEvents.clear();
		this.runner.withPropertyValues("test.instance=a").run((a) -> {
			assertThat(LeadershipEvents.next()).startsWith("granted a ");
			long epoch = a.getBean(LeaderElections.class).epoch("nightly").orElseThrow();
			NightlyJobs leader = a.getBean(NightlyJobs.class);
			Future<Optional<String>> call = this.caller.submit(leader::runUntilLetGo);
			assertThat(leader.entered().await(10, TimeUnit.SECONDS)).as("the method started").isTrue();
			try (RespClient client = redis.client()) {
				assertThat(client.call("DEL", LOCK)).isEqualTo(1L);
			}
			assertThat(LeadershipEvents.next()).isEqualTo("revoked a LOST " + epoch);
			leader.letGo().countDown();
			assertThat(call).failsWithin(Duration.ofSeconds(10))
				.withThrowableOfType(ExecutionException.class)
				.havingCause()
				.isInstanceOfSatisfying(LockLostException.class, (lost) -> {
					assertThat(lost.getLockKey()).isEqualTo("nightly");
					assertThat(lost.getToken()).isEqualTo(epoch);
				});
		});
	}

	@Test
	void healthAndTheEndpointShowTheElectionsWithTheTermThisInstanceLeads() {
		LeadershipEvents.clear();
		this.runner.withPropertyValues("test.instance=a").run((a) -> {
			assertThat(LeadershipEvents.next()).startsWith("granted a ");
			long epoch = a.getBean(LeaderElections.class).epoch("nightly").orElseThrow();
			this.runner.withPropertyValues("test.instance=b").run((b) -> {
				Health health = a.getBean(DistLockHealthIndicator.class).health(true);
				@SuppressWarnings("unchecked")
				List<ElectionView> shown = (List<ElectionView>) health.getDetails().get("elections");
				assertThat(shown).singleElement().satisfies((view) -> {
					assertThat(view.election()).isEqualTo("nightly");
					assertThat(view.leader()).isTrue();
					assertThat(view.epoch()).isEqualTo(epoch);
					assertThat(view.since()).isNotNull();
				});
				assertThat(b.getBean(DistLocksEndpoint.class).locks().elections())
					.containsExactly(new ElectionView("nightly", false, null, null));
				assertThat(a.getBean(DistLocksEndpoint.class).locks().locks())
					.anySatisfy((lock) -> assertThat(lock.token()).isEqualTo(epoch));
			});
		});
	}

	@Test
	void aMethodWhoseResultCannotSayNothingFailsStartUpNamingIt() {
		LockContexts.onRedis(redis)
			.withConfiguration(AutoConfigurations.of(DistLockLeaderAutoConfiguration.class))
			.withUserConfiguration(CountingJob.class)
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.isInstanceOf(LockDefinitionException.class)
				.hasMessageContaining("Invalid @LeaderOnly on CountingJob#count")
				.hasMessageContaining("which int cannot say")
				.hasMessageContaining("return void, Optional, CompletionStage, CompletableFuture, Mono or Flux"));
	}

	@Test
	void aMethodThatNamesNoElectionFailsStartUpNamingIt() {
		LockContexts.onRedis(redis)
			.withConfiguration(AutoConfigurations.of(DistLockLeaderAutoConfiguration.class))
			.withUserConfiguration(UnnamedJob.class)
			.withPropertyValues("jobs.election=")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.isInstanceOf(LockDefinitionException.class)
				.hasMessageContaining("Invalid @LeaderOnly on UnnamedJob#run: it names no election"));
	}

	@Test
	void aMethodNoProxyCanInterceptFailsStartUpRatherThanRunEverywhere() {
		LockContexts.onRedis(redis)
			.withConfiguration(AutoConfigurations.of(DistLockLeaderAutoConfiguration.class))
			.withUserConfiguration(PrivateJob.class)
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.isInstanceOf(LockDefinitionException.class)
				.hasMessageContaining("Invalid @LeaderOnly on PrivateJob#run: the method is private")
				.hasMessageContaining("it would run on every instance"));
	}

	/** The jobs every instance has, each recording where it ran and with which token. */
	@Configuration(proxyBeanMethods = false)
	@EnableAsync
	static class NightlyJobs {

		private final List<String> ran = new CopyOnWriteArrayList<>();

		private final CountDownLatch entered = new CountDownLatch(1);

		private final CountDownLatch letGo = new CountDownLatch(1);

		private final String instance;

		NightlyJobs(@Value("${test.instance:x}") String instance) {
			this.instance = instance;
		}

		/** Public accessors: the bean is a proxy, whose own fields are not the target's. */
		public List<String> ran() {
			return this.ran;
		}

		public CountDownLatch entered() {
			return this.entered;
		}

		public CountDownLatch letGo() {
			return this.letGo;
		}

		private String here() {
			String here = this.instance + " " + LockContext.current().token();
			this.ran.add(here);
			return here;
		}

		@LeaderOnly("nightly")
		public Void run() {
			here();
			return null;
		}

		@LeaderOnly("nightly")
		public Optional<String> report() {
			return Optional.of(here());
		}

		@LeaderOnly(election = "${jobs.election:nightly}")
		public CompletableFuture<String> later() {
			return CompletableFuture.completedFuture(here());
		}

		@LeaderOnly("nightly")
		public Mono<String> mono() {
			return hereInPipeline();
		}

		@LeaderOnly("nightly")
		public Flux<String> flux() {
			return Flux.from(hereInPipeline());
		}

		private Mono<String> hereInPipeline() {
			return ReactiveLockContext.current().map((lock) -> {
				String here = this.instance + " " + lock.token();
				this.ran.add(here);
				return here;
			});
		}

		/** Run by {@code @Async} on its executor, where the share of the term is taken around the method. */
		@Async
		@LeaderOnly("nightly")
		public CompletableFuture<String> inBackground() {
			return CompletableFuture.completedFuture(here());
		}

		@LeaderOnly("nightly")
		public Optional<String> runUntilLetGo() throws InterruptedException {
			this.entered.countDown();
			this.letGo.await();
			return Optional.of("done");
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class CountingJob {

		@LeaderOnly("nightly")
		public int count() {
			return 1;
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class UnnamedJob {

		@LeaderOnly("${jobs.election}")
		public void run() {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class PrivateJob {

		@LeaderOnly("nightly")
		private void run() {
		}

	}

}
