package io.github.distlock.torture.run;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import io.github.distlock.processes.Signals;

import io.github.distlock.torture.worker.TortureWorker;

/**
 * One worker JVM, started from this JVM's class path with a small heap and small-machine flags (the test fixture's
 * launcher takes no JVM options), its output copied to a file and readable line by line, signalled by PID.
 */
final class WorkerJvm implements AutoCloseable {

	private static final List<String> JVM_OPTIONS = JavaCommand.options("256m");

	private final String name;

	private final Process process;

	private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();

	/** Queued after the last line, when the output ends: the worker has exited. */
	private static final String END = new String("end of output");

	private final Path output;

	private WorkerJvm(String name, Process process, Path output) {
		this.name = name;
		this.process = process;
		this.output = output;
		Thread reader = new Thread(() -> copyOutput(output), "output-of-" + name);
		reader.setDaemon(true);
		reader.start();
	}

	static WorkerJvm start(String name, Path output, List<String> arguments) {
		List<String> command = JavaCommand.of(JVM_OPTIONS, TortureWorker.class.getName(), arguments);
		try {
			return new WorkerJvm(name, new ProcessBuilder(command).redirectErrorStream(true).start(), output);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Cannot start worker " + name, ex);
		}
	}

	private void copyOutput(Path output) {
		try (BufferedReader reader = new BufferedReader(
				new InputStreamReader(this.process.getInputStream(), StandardCharsets.UTF_8));
				OutputStream file = Files.newOutputStream(output, StandardOpenOption.CREATE,
						StandardOpenOption.APPEND)) {
			String line;
			while ((line = reader.readLine()) != null) {
				file.write((line + "\n").getBytes(StandardCharsets.UTF_8));
				file.flush();
				this.lines.add(line);
			}
		}
		catch (IOException ex) {
			// The process is gone; what it said is in the file.
		}
		this.lines.add(END);
	}

	String name() {
		return this.name;
	}

	long pid() {
		return this.process.pid();
	}

	boolean isAlive() {
		return this.process.isAlive();
	}

	/** Waits for the first line from now on that starts with the prefix; fails after the timeout. */
	String awaitLine(String prefix, Duration timeout) throws InterruptedException {
		long deadline = System.nanoTime() + timeout.toNanos();
		while (true) {
			String line = this.lines.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
			if (line == null || line == END) {
				throw new IllegalStateException("Worker " + this.name + " (pid " + pid() + ") said no line starting with '"
						+ prefix + "' " + ((line == END) ? "before it exited" : "within " + timeout)
						+ "; its output is in " + this.output);
			}
			if (line.startsWith(prefix)) {
				return line;
			}
		}
	}

	void send(String line) {
		try {
			OutputStream in = this.process.getOutputStream();
			in.write((line + "\n").getBytes(StandardCharsets.UTF_8));
			in.flush();
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Cannot talk to worker " + this.name, ex);
		}
	}

	/** Sends a signal by PID: STOP (returning once the worker is stopped), CONT or KILL. */
	void signal(String signal) {
		if (signal.equals("STOP")) {
			Signals.stop(pid());
		}
		else {
			Signals.send(signal, pid());
		}
	}

	boolean waitForExit(Duration timeout) throws InterruptedException {
		return this.process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
	}

	@Override
	public void close() {
		if (this.process.isAlive()) {
			// A stopped process ignores everything but SIGKILL and SIGCONT; make sure it can die.
			Signals.sendQuietly("CONT", pid());
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
