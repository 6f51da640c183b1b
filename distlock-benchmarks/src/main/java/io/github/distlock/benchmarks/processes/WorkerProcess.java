package io.github.distlock.benchmarks.processes;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
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
import java.util.jar.JarFile;

import io.github.distlock.benchmarks.BenchmarkMain;
import io.github.distlock.benchmarks.systems.LockSettings;

/**
 * The harness's side of a {@link ContendedWorker}: a JVM started from the same code (the executable jar, or the
 * class path of a test run), talked to line by line.
 */
public final class WorkerProcess implements AutoCloseable {

	private final Process process;

	private final PrintStream commands;

	private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();

	private final List<String> transcript = new CopyOnWriteArrayList<>();

	private WorkerProcess(Process process) {
		this.process = process;
		this.commands = new PrintStream(process.getOutputStream(), true, StandardCharsets.UTF_8);
		Thread reader = new Thread(this::readOutput, "worker-output-" + process.pid());
		reader.setDaemon(true);
		reader.start();
	}

	/** Starts a worker with one client of the named system and waits until it is connected. */
	public static WorkerProcess start(String system, String host, int port, LockSettings locks, Duration timeout) {
		List<String> command = new ArrayList<>();
		command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
		command.add("-Xmx256m");
		String classPath = System.getProperty("java.class.path");
		if (isExecutableJar(classPath)) {
			command.add("-jar");
			command.add(classPath);
		}
		else {
			command.add("-cp");
			command.add(classPath);
			command.add(BenchmarkMain.class.getName());
		}
		command.addAll(List.of(BenchmarkMain.WORKER, system, host, String.valueOf(port),
				String.valueOf(locks.lease().toMillis()), String.valueOf(locks.waitTime().toMillis())));
		try {
			WorkerProcess worker = new WorkerProcess(new ProcessBuilder(command).redirectErrorStream(true).start());
			worker.awaitLine(ContendedWorker.READY, timeout);
			return worker;
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/** The benchmark's executable jar, run with {@code java -jar}: its classes are nested, not on the class path. */
	private static boolean isExecutableJar(String classPath) {
		if (!classPath.endsWith(".jar") || classPath.contains(File.pathSeparator)) {
			return false;
		}
		try (JarFile jar = new JarFile(classPath)) {
			return jar.getManifest() != null && jar.getManifest().getMainAttributes().getValue("Start-Class") != null;
		}
		catch (IOException ex) {
			return false;
		}
	}

	/**
	 * Has the worker run its threads on the hot lock for the window and write what it saw to the file.
	 */
	public void run(long startNanos, long windowNanos, int threads, Path file) {
		this.commands.println("RUN " + startNanos + " " + windowNanos + " " + threads + " " + file);
	}

	/** Waits for the end of a {@link #run}. @return the worker's timed-out acquisitions */
	public long awaitDone(Duration timeout) {
		String line = awaitLine(ContendedWorker.DONE, timeout);
		return Long.parseLong(line.substring(ContendedWorker.DONE.length()).trim());
	}

	private String awaitLine(String prefix, Duration timeout) {
		long deadline = System.nanoTime() + timeout.toNanos();
		try {
			while (true) {
				String line = this.lines.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
				if (line == null) {
					throw new IllegalStateException("Worker " + this.process.pid() + " did not say '" + prefix
							+ "' within " + timeout + (this.process.isAlive() ? "" : " (it exited)") + "; it said:\n"
							+ String.join("\n", this.transcript));
				}
				if (line.startsWith(prefix)) {
					return line;
				}
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while waiting for worker " + this.process.pid(), ex);
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
			// The worker is gone; what it said is in the transcript.
		}
	}

	@Override
	public void close() {
		this.commands.println("QUIT");
		try {
			if (!this.process.waitFor(20, TimeUnit.SECONDS)) {
				this.process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			this.process.destroyForcibly();
		}
	}

}
