package io.github.distlock.test;

import java.io.File;
import java.io.IOException;
import java.util.List;

import org.testcontainers.DockerClientFactory;

import redis.embedded.core.ExecutableProvider;

/**
 * Starts a real Redis server for a test, from the first source this machine has: {@code redis-server} on the PATH,
 * a container where a Docker engine answers, or the {@code redis-server} binary shipped inside the embedded-redis
 * artifact. Never skips: with none of them, the test fails and says how to fix it.
 */
public final class RedisServers {

	private RedisServers() {
	}

	public static RedisServer start() {
		File onPath = findOnPath("redis-server");
		if (onPath != null) {
			return RedisProcess.start(onPath);
		}
		if (dockerAnswers()) {
			return new RedisContainer();
		}
		return RedisProcess.start(embeddedBinary());
	}

	/** A server that is always a local process, for tests that kill and restart it. */
	public static RedisProcess startProcess() {
		return startProcess(List.of());
	}

	/** A local process started with more server arguments, such as {@code --cluster-enabled yes}. */
	public static RedisProcess startProcess(List<String> extraArgs) {
		File onPath = findOnPath("redis-server");
		return RedisProcess.start((onPath != null) ? onPath : embeddedBinary(), extraArgs);
	}

	private static File embeddedBinary() {
		try {
			File binary = ExecutableProvider.newJarResourceProvider().get();
			binary.setExecutable(true);
			return binary;
		}
		catch (IOException | RuntimeException ex) {
			throw new IllegalStateException("No Redis server for the tests: there is no redis-server on the PATH, "
					+ "no Docker engine, and the embedded-redis binary could not be used on this machine ("
					+ ex.getMessage() + "). Install Redis (apt-get install -y redis-server, brew install redis) "
					+ "and run the tests again.", ex);
		}
	}

	private static boolean dockerAnswers() {
		try {
			return DockerClientFactory.instance().isDockerAvailable();
		}
		catch (RuntimeException | LinkageError ex) {
			return false;
		}
	}

	static File findOnPath(String name) {
		String path = System.getenv("PATH");
		if (path == null) {
			return null;
		}
		for (String dir : path.split(File.pathSeparator)) {
			File candidate = new File(dir, name);
			if (candidate.isFile() && candidate.canExecute()) {
				return candidate;
			}
		}
		return null;
	}

}
