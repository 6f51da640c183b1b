package io.github.distlock.processes;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * The working directories of the processes started for tests and demos: made in the system's temporary directory,
 * removed with everything in them once the process is gone.
 */
public final class TemporaryDirectory {

	private TemporaryDirectory() {
	}

	/**
	 * A new empty directory.
	 * @param prefix the start of its name, such as {@code distlock-redis-}
	 * @param purpose what it is for, for the failure's message
	 * @throws UncheckedIOException if it could not be made
	 */
	public static Path create(String prefix, String purpose) {
		try {
			return Files.createTempDirectory(prefix);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not create a directory for " + purpose, ex);
		}
	}

	/**
	 * Removes the directory and everything in it, as far as it can: a leftover in the temporary directory is
	 * harmless, and the process it served is what must not outlive its owner.
	 */
	public static void deleteQuietly(Path dir) {
		try (Stream<Path> paths = Files.walk(dir)) {
			paths.sorted(Comparator.reverseOrder()).forEach((path) -> path.toFile().delete());
		}
		catch (IOException ex) {
			// Left to the system's clean-up of its temporary directory.
		}
	}

}
