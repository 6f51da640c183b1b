package io.github.distlock.benchmarks.processes;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.jar.JarFile;

import io.github.distlock.benchmarks.BenchmarkMain;
import io.github.distlock.benchmarks.systems.LockSettings;
import io.github.distlock.fixtures.JavaProcess;

/**
 * The harness's side of a {@link ContendedWorker}: a JVM started from the same code (the executable jar, or the
 * class path of a test run), talked to line by line through the test fixtures' {@link JavaProcess}.
 */
public final class WorkerProcess implements AutoCloseable {

	private final JavaProcess process;

	private WorkerProcess(JavaProcess process) {
		this.process = process;
	}

	/**
	 * Starts a worker with one client of the named system, without waiting for it: several start side by side, and
	 * each is then {@linkplain #awaitReady awaited}.
	 */
	public static WorkerProcess launch(String system, String host, int port, LockSettings locks,
			List<String> jvmOptions) {
		List<String> arguments = new ArrayList<>();
		arguments.add("-Xmx256m");
		arguments.addAll(jvmOptions);
		String classPath = System.getProperty("java.class.path");
		if (isExecutableJar(classPath)) {
			arguments.add("-jar");
			arguments.add(classPath);
		}
		else {
			arguments.add("-cp");
			arguments.add(classPath);
			arguments.add(BenchmarkMain.class.getName());
		}
		arguments.addAll(List.of(BenchmarkMain.WORKER, system, host, String.valueOf(port),
				String.valueOf(locks.lease().toMillis()), String.valueOf(locks.waitTime().toMillis())));
		return new WorkerProcess(JavaProcess.startJava(arguments));
	}

	/** Waits until the worker is connected; a worker that is not in time is stopped. */
	public void awaitReady(Duration timeout) {
		try {
			awaitLine(ContendedWorker.READY, timeout);
		}
		catch (RuntimeException ex) {
			this.process.close();
			throw ex;
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
		this.process.send("RUN " + startNanos + " " + windowNanos + " " + threads + " " + file);
	}

	/** Waits for the end of a {@link #run}. @return the worker's timed-out acquisitions */
	public long awaitDone(Duration timeout) {
		String line = awaitLine(ContendedWorker.DONE, timeout);
		return Long.parseLong(line.substring(ContendedWorker.DONE.length()).trim());
	}

	/** As the test fixture's wait, but failing as a step of the run (an exception), not as a test (an error). */
	private String awaitLine(String prefix, Duration timeout) {
		try {
			return this.process.awaitLine(prefix, timeout);
		}
		catch (AssertionError ex) {
			throw new IllegalStateException(ex.getMessage());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while waiting for worker " + this.process.pid(), ex);
		}
	}

	@Override
	public void close() {
		try {
			this.process.send("QUIT");
		}
		catch (UncheckedIOException ex) {
			// Already gone.
		}
		try {
			if (!this.process.waitForExit(Duration.ofSeconds(20))) {
				this.process.close();
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			this.process.close();
		}
	}

}
