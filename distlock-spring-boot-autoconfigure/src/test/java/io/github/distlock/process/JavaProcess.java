package io.github.distlock.process;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Another JVM running a main class from the test classpath, talked to line by line over its standard streams, and
 * signalled by PID like any process (SIGSTOP, SIGCONT, SIGKILL).
 */
public final class JavaProcess implements AutoCloseable {

	private final Process process;

	private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();

	private final List<String> transcript = new CopyOnWriteArrayList<>();

	private JavaProcess(Process process) {
		this.process = process;
		Thread reader = new Thread(this::readOutput, "output-of-" + process.pid());
		reader.setDaemon(true);
		reader.start();
	}

	public static JavaProcess start(Class<?> mainClass, String... args) {
		List<String> arguments = new ArrayList<>();
		arguments.add("-Xmx256m");
		arguments.add("-cp");
		arguments.add(System.getProperty("java.class.path"));
		arguments.add(mainClass.getName());
		arguments.addAll(List.of(args));
		return startJava(arguments);
	}

	/** A JVM of this JDK with the given arguments (options, then a main class or {@code -jar}, then its arguments). */
	public static JavaProcess startJava(List<String> arguments) {
		List<String> command = new ArrayList<>();
		command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
		command.addAll(arguments);
		try {
			return new JavaProcess(new ProcessBuilder(command).redirectErrorStream(true).start());
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private void readOutput() {
		try (BufferedReader reader = new BufferedReader(
				new InputStreamReader(this.process.getInputStream(), StandardCharsets.UTF_8))) {
			String line;
			while ((line = reader.readLine()) != null) {
				this.transcript.add(line);
				this.lines.add(line);
			}
		}
		catch (IOException ex) {
			// the process is gone; what it said is in the transcript
		}
	}

	/** The first line from now on that starts with the prefix; fails after the timeout. */
	public String awaitLine(String prefix, Duration timeout) throws InterruptedException {
		long deadline = System.nanoTime() + timeout.toNanos();
		while (true) {
			String line = this.lines.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
			if (line == null) {
				throw new AssertionError("No line starting with '" + prefix + "' from process " + pid() + " within "
						+ timeout + "; it said:\n" + String.join("\n", this.transcript));
			}
			if (line.startsWith(prefix)) {
				return line;
			}
		}
	}

	public void send(String line) {
		try {
			OutputStream in = this.process.getOutputStream();
			in.write((line + "\n").getBytes(StandardCharsets.UTF_8));
			in.flush();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	public long pid() {
		return this.process.pid();
	}

	public void signal(String name) {
		try {
			Process kill = new ProcessBuilder("kill", "-" + name, String.valueOf(pid())).start();
			if (!kill.waitFor(5, TimeUnit.SECONDS) || kill.exitValue() != 0) {
				throw new IllegalStateException("kill -" + name + " " + pid() + " failed");
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

	public boolean waitForExit(Duration timeout) throws InterruptedException {
		return this.process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
	}

	public List<String> transcript() {
		return List.copyOf(this.transcript);
	}

	@Override
	public void close() {
		if (this.process.isAlive()) {
			this.process.destroyForcibly();
			try {
				this.process.waitFor(10, TimeUnit.SECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}
	}

}
