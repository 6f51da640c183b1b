package io.github.distlock.torture.run;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.concurrent.TimeUnit;

/**
 * Signals a process by PID with the system's {@code kill}, as an operator (or the kernel) would.
 */
final class Signals {

	private Signals() {
	}

	static void send(String signal, long pid) {
		try {
			Process kill = new ProcessBuilder("kill", "-" + signal, String.valueOf(pid)).redirectErrorStream(true)
				.start();
			String output = new String(kill.getInputStream().readAllBytes());
			if (!kill.waitFor(5, TimeUnit.SECONDS) || kill.exitValue() != 0) {
				throw new IllegalStateException("kill -" + signal + " " + pid + " failed: " + output);
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	static void sendQuietly(String signal, long pid) {
		try {
			send(signal, pid);
		}
		catch (RuntimeException ex) {
			// best effort, on the way out
		}
	}

}
