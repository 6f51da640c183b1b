package io.github.distlock.process;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import io.github.distlock.DistributedLock;
import io.github.distlock.LockContext;
import io.github.distlock.autoconfigure.DistLockAutoConfiguration;
import io.github.distlock.autoconfigure.RedisLockEngineAutoConfiguration;

/**
 * An application instance in its own JVM that takes the only permit of a distributed concurrency limit, says
 * {@code ACQUIRED <token>} and holds it until its standard input closes: the test kills it with SIGKILL meanwhile.
 * <p>
 * Arguments: Redis port, lease.
 */
public final class PermitHolderApplication {

	private PermitHolderApplication() {
	}

	public static void main(String[] args) throws Exception {
		try (ConfigurableApplicationContext context = new SpringApplicationBuilder(Instance.class)
			.web(WebApplicationType.NONE)
			.properties("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + args[0],
					"limit.lease=" + args[1], "spring.main.banner-mode=off", "logging.level.root=WARN")
			.run()) {
			context.getBean(Limited.class).hold();
		}
	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration({ AopAutoConfiguration.class, DataRedisAutoConfiguration.class,
			RedisLockEngineAutoConfiguration.class, DistLockAutoConfiguration.class })
	public static class Instance {

		@Bean
		Limited limited() {
			return new Limited();
		}

	}

	/** One permit, held by whoever calls {@link #hold} or {@link #take}; the lease comes from {@code limit.lease}. */
	public static class Limited {

		@DistributedLock(name = "limit", key = "'export'", permits = "1", lease = "${limit.lease}", waitTime = "0s")
		public void hold() throws IOException {
			System.out.println("ACQUIRED " + LockContext.current().token());
			System.out.flush();
			new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
		}

		@DistributedLock(name = "limit", key = "'export'", permits = "1", lease = "${limit.lease}", waitTime = "10s")
		public long take() {
			return LockContext.current().token();
		}

	}

}
