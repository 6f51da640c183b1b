package io.github.distlock.process;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;

import javax.sql.DataSource;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.annotation.Transactional;

import io.github.distlock.DistributedLock;
import io.github.distlock.LockContext;
import io.github.distlock.autoconfigure.DistLockAutoConfiguration;
import io.github.distlock.autoconfigure.RedisLockEngineAutoConfiguration;

/**
 * A second application instance in its own JVM, for the multi-process tests. It locks the shared fenced row, says
 * {@code ACQUIRED <token>}, waits for a line on its standard input, says {@code LOST <whether the lock is lost>}, then
 * writes the row with its fencing token and reports {@code WROTE}, {@code REJECTED} or {@code FAILED <exception>}.
 * <p>
 * Arguments: Redis port, JDBC URL of the shared database, lease.
 */
public final class LockHolderApplication {

	private LockHolderApplication() {
	}

	public static void main(String[] args) throws Exception {
		try (ConfigurableApplicationContext context = new SpringApplicationBuilder(Instance.class)
			.web(WebApplicationType.NONE)
			.properties("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + args[0],
					"spring.data.redis.timeout=500ms", "fence.url=" + args[1], "fence.lease=" + args[2],
					"spring.main.banner-mode=off", "logging.level.root=WARN")
			.run()) {
			BufferedReader stdin = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
			try {
				boolean wrote = context.getBean(FencedWriter.class).write("holder-process", () -> {
					System.out.println("ACQUIRED " + LockContext.current().token());
					System.out.flush();
					try {
						stdin.readLine();
					}
					catch (java.io.IOException ex) {
						throw new IllegalStateException(ex);
					}
					// What the holder's own clock says the moment it runs again, before anything reaches Redis.
					System.out.println("LOST " + LockContext.current().isLost());
					System.out.flush();
				});
				System.out.println(wrote ? "WROTE" : "REJECTED");
			}
			catch (RuntimeException ex) {
				System.out.println("FAILED " + ex.getClass().getSimpleName() + ": " + ex.getMessage());
			}
			System.out.flush();
		}
	}

	@Configuration(proxyBeanMethods = false)
	@Import(FenceDatabase.class)
	@ImportAutoConfiguration({ AopAutoConfiguration.class, DataRedisAutoConfiguration.class,
			RedisLockEngineAutoConfiguration.class, DistLockAutoConfiguration.class })
	static class Instance {

		@Bean
		FencedWriter fencedWriter(DataSource dataSource) {
			return new FencedWriter(new JdbcTemplate(dataSource));
		}

	}

	/** Writes the shared row only with a token larger than any it has seen: the downstream half of fencing. */
	public static class FencedWriter {

		private final JdbcTemplate jdbc;

		public FencedWriter(JdbcTemplate jdbc) {
			this.jdbc = jdbc;
		}

		@DistributedLock(key = "'row-1'", name = "fence", lease = "${fence.lease}", waitTime = "10s")
		@Transactional
		public boolean write(String writer, Runnable beforeWrite) {
			beforeWrite.run();
			long token = LockContext.current().token();
			int updated = this.jdbc.update("UPDATE fence SET writer = ?, last_token = ? WHERE id = 1 AND last_token < ?",
					writer, token, token);
			System.out.println("UPDATED " + updated);
			return updated == 1;
		}

	}

}
