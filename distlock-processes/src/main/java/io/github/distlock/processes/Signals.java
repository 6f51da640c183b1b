package io.github.distlock.processes;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * Signals sent to a process by its id, as an operator would with {@code kill}: the failure tests' pauses (SIGSTOP,
 * SIGCONT) and crashes (SIGKILL).
 */
public final class Signals {

	private static final long STOPPED_TIMEOUT_SECONDS = 10;

	private Signals() {
	}

	/**
	 * Sends a signal.
	 * @param signal the signal's name without {@code SIG}, such as {@code STOP} or {@code CONT}
	 * @throws IllegalStateException if {@code kill} failed, with what it said
	 */
	public static void send(String signal, long pid) {
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

	/** Sends a signal, ignoring a failure: for the way out, where the process may be gone already. */
	public static void sendQuietly(String signal, long pid) {
		try {
			send(signal, pid);
		}
		catch (RuntimeException ex) {
			// best effort
		}
	}

	/**
	 * SIGSTOP, returning once the kernel shows the process stopped: {@code kill} returns as the signal is sent, and a
	 * thread of the process may run a moment longer (an etcd server answered a read sent just after, in CI).
	 * @throws IllegalStateException if the process is not stopped within 10 seconds
	 */
	public static void stop(long pid) {
		send("STOP", pid);
		Path stat = Path.of("/proc", String.valueOf(pid), "stat");
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(STOPPED_TIMEOUT_SECONDS);
		String line = read(stat);
		while (!stopped(line)) {
			if (System.nanoTime() - deadline > 0) {
				throw new IllegalStateException(
						"Process " + pid + " not stopped " + STOPPED_TIMEOUT_SECONDS + " s after SIGSTOP: " + line);
			}
			try {
				// Polling: the kernel tells a process's state only when asked.
				Thread.sleep(1);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException("Interrupted while waiting for " + pid + " to stop", ex);
			}
			line = read(stat);
		}
	}

	/** Whether a {@code /proc/<pid>/stat} line says stopped: state T, after the command's name in parentheses. */
	static boolean stopped(String stat) {
		int afterName = stat.lastIndexOf(')');
		return afterName >= 0 && stat.length() > afterName + 2 && stat.charAt(afterName + 2) == 'T';
	}

	private static String read(Path stat) {
		try {
			return Files.readString(stat);
		}
		catch (NoSuchFileException ex) {
			throw new IllegalStateException("Process " + stat.getParent().getFileName() + " is gone", ex);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
