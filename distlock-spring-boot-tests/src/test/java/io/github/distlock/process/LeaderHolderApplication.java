package io.github.distlock.process;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import javax.sql.DataSource;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.context.ApplicationListener;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.annotation.Transactional;

import io.github.distlock.LockContext;
import io.github.distlock.autoconfigure.DistLockAutoConfiguration;
import io.github.distlock.autoconfigure.DistLockLeaderAutoConfiguration;
import io.github.distlock.autoconfigure.RedisLockEngineAutoConfiguration;
import io.github.distlock.leader.LeaderOnly;
import io.github.distlock.leader.LeadershipGrantedEvent;

/**
 * An application instance in its own JVM that leads the election {@code fence}, for the multi-process tests. Once
 * granted, it runs its {@code @LeaderOnly} job: says {@code RUNNING <epoch>}, waits for a line on its standard input,
 * says {@code LOST <whether its leadership is lost>}, then writes the shared row fenced by its epoch and reports
 * {@code WROTE}, {@code SKIPPED} or {@code FAILED <exception>}.
 * <p>
 * Arguments: Redis port, JDBC URL of the shared database, the election's lease.
 */
public final class LeaderHolderApplication {

	private LeaderHolderApplication() {
	}

	public static void main(String[] args) throws Exception {
		try (ConfigurableApplicationContext context = start(args[0], args[1], args[2], "logging.level.root=WARN")) {
			context.getBean(Instance.class).awaitGranted();
			BufferedReader stdin = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
			try {
				Optional<Boolean> wrote = context.getBean(FencedJob.class).write("leader-process", () -> {
					System.out.println("RUNNING " + LockContext.current().token());
					System.out.flush();
					try {
						stdin.readLine();
					}
					catch (IOException ex) {
						throw new IllegalStateException(ex);
					}
					// What the leader's own clock says the moment it runs again, before anything reaches Redis.
					System.out.println("LOST " + LockContext.current().isLost());
					System.out.flush();
				});
				System.out.println(wrote.map((written) -> written ? "WROTE" : "REJECTED").orElse("SKIPPED"));
			}
			catch (RuntimeException ex) {
				System.out.println("FAILED " + ex.getClass().getSimpleName() + ": " + ex.getMessage());
			}
			System.out.flush();
		}
	}

	/** An instance standing in the election {@code fence}, with the shared database. */
	static ConfigurableApplicationContext start(String redisPort, String databaseUrl, String lease,
			String... more) {
		return new SpringApplicationBuilder(Instance.class).web(WebApplicationType.NONE)
			.properties("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + redisPort,
					"spring.data.redis.timeout=500ms", "fence.url=" + databaseUrl, "distlock.leader.lease=" + lease,
					"spring.main.banner-mode=off")
			.properties(more)
			.run();
	}

	@Configuration(proxyBeanMethods = false)
	@Import(FenceDatabase.class)
	@ImportAutoConfiguration({ AopAutoConfiguration.class, DataRedisAutoConfiguration.class,
			RedisLockEngineAutoConfiguration.class, DistLockAutoConfiguration.class,
			DistLockLeaderAutoConfiguration.class })
	static class Instance {

		private final BlockingQueue<Long> granted = new LinkedBlockingQueue<>();

		@Bean
		FencedJob fencedJob(DataSource dataSource) {
			return new FencedJob(new JdbcTemplate(dataSource));
		}

		@Bean
		ApplicationListener<LeadershipGrantedEvent> grantedRecorder() {
			return (event) -> this.granted.add(event.getLeadership().epoch());
		}

		/** Waits until this instance is granted the election, and returns the term's epoch. */
		long awaitGranted() throws InterruptedException {
			Long epoch = this.granted.poll(60, TimeUnit.SECONDS);
			if (epoch == null) {
				throw new IllegalStateException("Not granted the election within 60 s");
			}
			return epoch;
		}

	}

	/** The leader's job: writes the shared row only with an epoch larger than any it has seen. */
	public static class FencedJob {

		private final JdbcTemplate jdbc;

		public FencedJob(JdbcTemplate jdbc) {
			this.jdbc = jdbc;
		}

		@LeaderOnly("fence")
		@Transactional
		public Optional<Boolean> write(String writer, Runnable beforeWrite) {
			beforeWrite.run();
			long epoch = LockContext.current().token();
			int updated = this.jdbc.update(
					"UPDATE fence SET writer = ?, last_token = ? WHERE id = 1 AND last_token < ?", writer, epoch,
					epoch);
			System.out.println("UPDATED " + updated);
			return Optional.of(updated == 1);
		}

	}

}
