package io.github.distlock.torture.run;

import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;

/**
 * Where the tests' runs keep their records: {@code target/torture} (set by the build), one directory per run.
 */
final class RunDirectories {

	private RunDirectories() {
	}

	static Path forRun(String name) {
		String stamp = LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"));
		return Path.of(System.getProperty("torture.dir", "target/torture")).resolve(name + "-" + stamp);
	}

	/** A random seed, unless {@code -Dtorture.seed=N} asks to repeat a run. */
	static long seed() {
		return Long.getLong("torture.seed", Math.floorMod(System.nanoTime(), 100_000L));
	}

}
