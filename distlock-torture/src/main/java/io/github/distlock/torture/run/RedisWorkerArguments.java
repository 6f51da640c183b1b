package io.github.distlock.torture.run;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The Spring properties of a worker on the Redis engine, whatever the topology: the engine, the command timeout,
 * and the client name by which connection kills find the worker's connections.
 */
final class RedisWorkerArguments {

	private RedisWorkerArguments() {
	}

	/**
	 * @param connection the properties that say where Redis is ({@code spring.data.redis.host}, {@code .cluster.nodes},
	 * {@code .sentinel.*})
	 */
	static List<String> of(String worker, Duration commandTimeout, String... connection) {
		List<String> arguments = new ArrayList<>(List.of("--distlock.backend=redis",
				"--spring.autoconfigure.exclude=org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration"));
		arguments.addAll(List.of(connection));
		arguments.add("--spring.data.redis.timeout=" + commandTimeout.toMillis() + "ms");
		// Names every connection of the worker, so that a connection kill finds the workers' and no other.
		arguments.add("--spring.data.redis.client-name=" + ClientKiller.NAME_PREFIX + worker);
		return arguments;
	}

}
