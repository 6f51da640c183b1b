package io.github.distlock.torture.run;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

import io.github.distlock.torture.history.HistoryFiles;
import io.github.distlock.torture.history.HistoryLine;

/**
 * Reads a running worker's history to find what it holds right now, so that a worker fault strikes a worker in
 * the middle of a critical section (a pause or a kill of an idle worker would prove nothing).
 */
final class OpenHolds {

	private OpenHolds() {
	}

	/**
	 * How long the longest section this worker is in now still means to hold its lock, or a negative number when
	 * it holds none.
	 */
	static long longestRemainingNanos(Path history) {
		if (!Files.exists(history)) {
			return -1;
		}
		Map<String, Long> open = new HashMap<>();
		for (HistoryLine line : HistoryFiles.read(history)) {
			switch (line.event()) {
				case "acquired" -> open.put(line.text("call"), line.number("acquired") + line.number("hold"));
				case "released", "lost", "failed" -> open.remove(line.textOr("call", ""));
				default -> {
					// other events open or close nothing
				}
			}
		}
		long now = System.nanoTime();
		return open.values().stream().mapToLong((holdsUntil) -> holdsUntil - now).max().orElse(-1);
	}

}
