package io.github.distlock.sample.demo;

import java.util.ArrayList;
import java.util.List;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.Environment;

import io.github.distlock.sample.SampleApplication;
import io.github.distlock.sample.embedded.EmbeddedRedisInitializer;
import io.github.distlock.testing.redis.EmbeddedRedisServer;

/**
 * Starts another instance of the sample in this JVM, as a second server of the same shop would be: its own Spring
 * context, its own lock client and connection pool, but the same Redis and the same database as the first.
 */
final class SecondInstance {

	/** Set on the second instance so that it does not run the demo itself. */
	static final String MARKER_PROPERTY = "sample.demo.second-instance";

	private SecondInstance() {
	}

	/**
	 * @param firstArgs the command-line arguments of the first instance, so the second is configured the same way
	 * @param first the first instance's environment, for its profiles however they were set
	 * @param firstRedis the first instance's embedded Redis, if it started one; the second must use that one
	 */
	static ConfigurableApplicationContext start(String[] firstArgs, Environment first,
			EmbeddedRedisServer firstRedis) {
		List<String> args = new ArrayList<>(List.of(firstArgs));
		args.add("--spring.profiles.active=" + String.join(",", first.getActiveProfiles()));
		args.add("--" + MARKER_PROPERTY + "=true");
		// An in-memory H2 database is shared by name within one JVM; the first instance has created and filled it.
		args.add("--spring.sql.init.mode=never");
		args.add("--spring.main.banner-mode=off");
		args.add("--" + EmbeddedRedisInitializer.ENABLED_PROPERTY + "=false");
		if (firstRedis != null) {
			args.add("--spring.data.redis.host=" + firstRedis.host());
			args.add("--spring.data.redis.port=" + firstRedis.port());
		}
		return new SpringApplicationBuilder(SampleApplication.class).web(WebApplicationType.NONE)
			.run(args.toArray(String[]::new));
	}

}
