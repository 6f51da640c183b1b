package io.github.distlock.sample.embedded;

import java.io.File;
import java.io.IOException;

import redis.embedded.core.ExecutableProvider;

/**
 * The {@code redis-server} executable the sample runs, and where it came from (for the start-up log line).
 *
 * @param file the executable
 * @param origin where it was found, such as "PATH" or "embedded-redis"
 */
record RedisBinary(File file, String origin) {

	private static final String EXECUTABLE = "redis-server";

	/**
	 * A {@code redis-server} on the given search path, else the binary shipped inside embedded-redis. The installed
	 * one comes first: it is a current release built for this machine, while the shipped ones are older builds for a
	 * few common platforms.
	 * @param searchPath a PATH-style list of directories, may be {@code null}
	 */
	static RedisBinary locate(String searchPath) {
		File onPath = findOnPath(searchPath);
		if (onPath != null) {
			return new RedisBinary(onPath, "PATH");
		}
		return bundled();
	}

	private static File findOnPath(String searchPath) {
		if (searchPath == null || searchPath.isBlank()) {
			return null;
		}
		for (String dir : searchPath.split(File.pathSeparator)) {
			if (dir.isEmpty()) {
				continue;
			}
			File candidate = new File(dir, EXECUTABLE);
			if (candidate.isFile() && candidate.canExecute()) {
				return candidate;
			}
		}
		return null;
	}

	private static RedisBinary bundled() {
		try {
			File file = ExecutableProvider.newJarResourceProvider().get();
			// The provider extracts the binary from the jar; extraction does not always keep the executable bit.
			file.setExecutable(true);
			return new RedisBinary(file, "embedded-redis");
		}
		catch (IOException | RuntimeException ex) {
			throw new IllegalStateException("The sample could not find a Redis server to start: there is no "
					+ EXECUTABLE + " on the PATH and embedded-redis has no binary for this machine (" + ex.getMessage()
					+ "). Install Redis, or point spring.data.redis.host and spring.data.redis.port at one.", ex);
		}
	}

}
