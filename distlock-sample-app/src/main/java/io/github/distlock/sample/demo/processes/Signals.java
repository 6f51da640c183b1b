package io.github.distlock.sample.demo.processes;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/** Sends a signal to a process by its id with the system's {@code kill}: Java itself can only end a process. */
final class Signals {

	private Signals() {
	}

	/**
	 * @param signal the signal's name without {@code SIG}, such as {@code STOP} or {@code CONT}
	 * @throws IllegalStateException if {@code kill} failed
	 */
	static void send(String signal, long pid) {
		try {
			Process kill = new ProcessBuilder("kill", "-" + signal, String.valueOf(pid)).redirectErrorStream(true)
				.start();
			String output = new String(kill.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
			if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
				throw new IllegalStateException("kill -" + signal + " " + pid + " failed: " + output);
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not run kill -" + signal + " " + pid, ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while signalling " + pid, ex);
		}
	}

}
