package io.github.distlock.torture.history;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads record files back. A file whose writer was killed may end in a torn line (no newline yet): that line is
 * dropped, since a half-written event says nothing reliable.
 */
public final class HistoryFiles {

	private HistoryFiles() {
	}

	public static List<HistoryLine> read(Path file) {
		String content;
		try {
			content = Files.readString(file, StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Cannot read " + file, ex);
		}
		List<HistoryLine> lines = new ArrayList<>();
		int from = 0;
		int newline;
		while ((newline = content.indexOf('\n', from)) >= 0) {
			String line = content.substring(from, newline);
			if (!line.isBlank()) {
				lines.add(HistoryLine.parse(line));
			}
			from = newline + 1;
		}
		return lines;
	}

}
