package io.github.distlock.testing.redis;

import java.io.File;
import java.io.IOException;

import org.jspecify.annotations.Nullable;
import redis.embedded.core.ExecutableProvider;

/**
 * The {@code redis-server} executable to run, and where it came from (for log lines and failure messages).
 *
 * @param file the executable
 * @param origin where it was found, such as "PATH" or "embedded-redis"
 */
public record RedisBinary(File file, String origin) {

	private static final String EXECUTABLE = "redis-server";

	/** What to do when there is no server to run; the callers add their own way out. */
	public static final String INSTALL_ADVICE = "Install Redis so that redis-server is on the PATH (apt install "
			+ "redis-server, dnf install redis, brew install redis)";

	/**
	 * A {@code redis-server} on the given search path, else the binary shipped inside embedded-redis. The installed
	 * one comes first: it is a current release built for this machine, while the shipped ones are older builds for a
	 * few common platforms.
	 * @param searchPath a PATH-style list of directories, may be {@code null}
	 * @throws IllegalStateException if there is neither
	 */
	public static RedisBinary locate(@Nullable String searchPath) {
		File onPath = findOnPath(searchPath);
		if (onPath != null) {
			return new RedisBinary(onPath, "PATH");
		}
		return bundled();
	}

	/**
	 * Exactly this executable, with no search: for a setting that names it.
	 * @param origin what named it, such as a property
	 * @throws IllegalStateException if it is not an executable file
	 */
	public static RedisBinary at(File file, String origin) {
		if (!file.isFile() || !file.canExecute()) {
			throw new IllegalStateException(origin + " names " + file + ", which is not an executable file. "
					+ INSTALL_ADVICE + ", or point " + origin + " at its redis-server.");
		}
		return new RedisBinary(file, origin);
	}

	private static @Nullable File findOnPath(@Nullable String searchPath) {
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
			throw new IllegalStateException("No Redis server to start: there is no " + EXECUTABLE + " on the PATH "
					+ "and embedded-redis has no binary for this machine (" + ex.getMessage() + "). " + INSTALL_ADVICE
					+ ".", ex);
		}
	}

}
