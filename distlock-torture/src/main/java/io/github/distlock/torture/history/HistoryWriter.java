package io.github.distlock.torture.history;

import java.io.FileOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * Appends lines to a record file, each with one unbuffered write, so the line reaches the operating system before
 * the call returns: a process killed with SIGKILL loses at most the line it was writing. Safe for many threads.
 */
public final class HistoryWriter implements AutoCloseable {

	private final FileOutputStream out;

	public HistoryWriter(Path file) {
		try {
			this.out = new FileOutputStream(file.toFile(), true);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Cannot open " + file, ex);
		}
	}

	public void write(HistoryLine line) {
		byte[] bytes = (line + "\n").getBytes(StandardCharsets.UTF_8);
		synchronized (this) {
			try {
				this.out.write(bytes);
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
		}
	}

	@Override
	public synchronized void close() {
		try {
			this.out.close();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
