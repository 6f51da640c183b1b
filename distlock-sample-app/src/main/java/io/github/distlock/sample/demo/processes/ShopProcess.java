package io.github.distlock.sample.demo.processes;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;

import io.github.distlock.processes.Signals;

import io.github.distlock.sample.SampleApplication;

/**
 * One shop of the demo: a JVM of this sample, started from the code the demo itself runs from (the executable jar,
 * or the class path of a build), listening on a free loopback port, its output in a log file. Frozen and thawed by
 * process id, as an operator or a stalled VM would.
 */
final class ShopProcess implements AutoCloseable {

	private static final String HOST = "127.0.0.1";

	/** Every port handed to a shop by this JVM, so that no two shops get the same one. */
	private static final Set<Integer> handedOut = ConcurrentHashMap.newKeySet();

	private final String name;

	private final int port;

	private final Path log;

	private final Process process;

	private volatile boolean frozen;

	private ShopProcess(String name, int port, Path log, Process process) {
		this.name = name;
		this.port = port;
		this.log = log;
		this.process = process;
	}

	/**
	 * Starts a shop; it is not ready until {@link #awaitHealthy}.
	 * @param name what to call it, also the name of its log file
	 * @param jvmOptions options for its JVM
	 * @param arguments its application arguments
	 * @param environment variables to add to its environment (settings not to show on a command line)
	 * @param logs the directory for its log file
	 */
	static ShopProcess start(String name, List<String> jvmOptions, List<String> arguments,
			Map<String, String> environment, Path logs) {
		int port = freePort();
		List<String> command = new ArrayList<>();
		command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
		command.addAll(jvmOptions);
		command.addAll(launch());
		command.add("--server.port=" + port);
		command.add("--server.address=" + HOST);
		command.addAll(arguments);
		Path log = logs.resolve(name + ".log");
		ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
		builder.environment().putAll(environment);
		try {
			return new ShopProcess(name, port, log, builder.start());
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not start " + name + ": " + ex.getMessage(), ex);
		}
	}

	/** {@code -jar} and this jar when the demo runs from the executable jar; else the class path and main class. */
	private static List<String> launch() {
		String classPath = System.getProperty("java.class.path");
		if (isExecutableJar(classPath)) {
			return List.of("-jar", classPath);
		}
		return List.of("-cp", classPath, SampleApplication.class.getName());
	}

	private static boolean isExecutableJar(String classPath) {
		if (!classPath.endsWith(".jar") || classPath.contains(File.pathSeparator)) {
			return false;
		}
		try (JarFile jar = new JarFile(classPath)) {
			// Spring Boot's launcher names the application's main class here; its classes are nested in the jar.
			return jar.getManifest() != null && jar.getManifest().getMainAttributes().getValue("Start-Class") != null;
		}
		catch (IOException ex) {
			return false;
		}
	}

	String name() {
		return this.name;
	}

	long pid() {
		return this.process.pid();
	}

	/** An address of this shop, such as {@code uri("/actuator/health")}. */
	URI uri(String path) {
		return URI.create("http://" + HOST + ":" + this.port + path);
	}

	/**
	 * Waits until the shop reports UP.
	 * @throws IllegalStateException with the end of its log, if it exits first or the deadline passes
	 */
	void awaitHealthy(ShopHttp http, long deadlineNanos) {
		URI health = uri("/actuator/health");
		while (!http.healthy(health)) {
			if (!this.process.isAlive()) {
				throw new IllegalStateException(this.name + " exited with " + this.process.exitValue()
						+ " before it was healthy; the end of " + this.log + ":\n" + logTail());
			}
			if (System.nanoTime() > deadlineNanos) {
				throw new IllegalStateException(this.name + " was not healthy in time; the end of " + this.log + ":\n"
						+ logTail());
			}
			// Polling: a separate process tells us it is ready only by answering.
			sleep(Duration.ofMillis(250));
		}
	}

	/** SIGSTOP: every thread of the shop stops where it is, its lock watchdog too, as in a long GC pause. */
	void freeze() {
		Signals.stop(pid());
		this.frozen = true;
	}

	/** SIGCONT: the shop goes on from where it stopped, unaware of the time that passed. */
	void thaw() {
		Signals.send("CONT", pid());
		this.frozen = false;
	}

	/** The last lines of the shop's log. */
	String logTail() {
		try {
			List<String> lines = Files.readAllLines(this.log);
			return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
		}
		catch (IOException ex) {
			return "(no log: " + ex.getMessage() + ")";
		}
	}

	/**
	 * Stops the shop as an operator would (SIGTERM, which it answers with a graceful shutdown), and kills it if it
	 * is still there after 20 seconds. A frozen shop is thawed first: it would not act on SIGTERM while stopped.
	 */
	@Override
	public void close() {
		if (!this.process.isAlive()) {
			return;
		}
		if (this.frozen) {
			try {
				thaw();
			}
			catch (RuntimeException ex) {
				// SIGKILL below works on a stopped process too.
			}
		}
		this.process.destroy();
		try {
			if (!this.process.waitFor(20, TimeUnit.SECONDS)) {
				this.process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
			}
		}
		catch (InterruptedException ex) {
			this.process.destroyForcibly();
			Thread.currentThread().interrupt();
		}
	}

	@Override
	public String toString() {
		return this.name + " (pid " + pid() + ", http://" + HOST + ":" + this.port + ")";
	}

	private static void sleep(Duration duration) {
		try {
			Thread.sleep(duration.toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted", ex);
		}
	}

	/**
	 * A port free now and not handed to another shop of this demo: the kernel may offer a port it just gave out again
	 * while the first shop has not bound it yet, and two shops on one port leave one of them dead (CI once saw both
	 * shops' health answered by the one alive).
	 */
	private static int freePort() {
		while (true) {
			int port;
			try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName(HOST))) {
				port = socket.getLocalPort();
			}
			catch (IOException ex) {
				throw new UncheckedIOException("No free port on " + HOST, ex);
			}
			if (handedOut.add(port)) {
				return port;
			}
		}
	}

}
