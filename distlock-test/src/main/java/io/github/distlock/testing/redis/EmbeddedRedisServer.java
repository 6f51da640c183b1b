package io.github.distlock.testing.redis;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.support.DefaultSingletonBeanRegistry;

/**
 * A real {@code redis-server} process on loopback, with nothing persisted, for an application context that needs a
 * Redis of its own: a test context ({@code @AutoConfigureDistLock}) or the sample's first run. Tied to a context
 * with {@link #bindTo}, it lives exactly as long as that context.
 */
public final class EmbeddedRedisServer implements DisposableBean {

	/** Loopback only: nothing outside this machine should reach a server without a password. */
	public static final String HOST = "127.0.0.1";

	private static final Log logger = LogFactory.getLog(EmbeddedRedisServer.class);

	/** Attempts on a fresh free port: another process may take a port between our probe and redis binding it. */
	private static final int PORT_ATTEMPTS = 3;

	private static final long READY_TIMEOUT_MILLIS = 15_000;

	private final RedisBinary binary;

	private final int port;

	private final Path dir;

	private final Process process;

	private EmbeddedRedisServer(RedisBinary binary, int port, Path dir, Process process) {
		this.binary = binary;
		this.port = port;
		this.dir = dir;
		this.process = process;
	}

	/**
	 * Starts a server and waits until it answers.
	 * @param binary the executable to run
	 * @param port the port to listen on, or 0 for a free one
	 * @throws IllegalStateException if the server could not be run, exited, or did not answer in time
	 */
	public static EmbeddedRedisServer start(RedisBinary binary, int port) {
		int attempts = (port == 0) ? PORT_ATTEMPTS : 1;
		IllegalStateException failure = null;
		for (int attempt = 0; attempt < attempts; attempt++) {
			try {
				return launch(binary, (port == 0) ? freePort() : port);
			}
			catch (IllegalStateException ex) {
				failure = ex;
			}
		}
		throw failure;
	}

	private static EmbeddedRedisServer launch(RedisBinary binary, int port) {
		Path dir = createWorkDirectory();
		Process process;
		try {
			// No RDB snapshots and no AOF: a server that leaves nothing behind when it stops.
			process = new ProcessBuilder(binary.file().getAbsolutePath(), "--port", String.valueOf(port), "--bind",
					HOST, "--save", "", "--appendonly", "no", "--dir", dir.toString())
				.redirectErrorStream(true)
				.redirectOutput(dir.resolve("redis.log").toFile())
				.start();
		}
		catch (IOException ex) {
			deleteQuietly(dir);
			throw new IllegalStateException("Could not run " + binary.file() + ": " + ex.getMessage(), ex);
		}
		EmbeddedRedisServer server = new EmbeddedRedisServer(binary, port, dir, process);
		server.awaitReady();
		return server;
	}

	private void awaitReady() {
		long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(READY_TIMEOUT_MILLIS);
		while (System.nanoTime() < deadline) {
			if (!this.process.isAlive()) {
				String log = log();
				stop();
				throw new IllegalStateException("redis-server exited at start-up on port " + this.port + ": " + log);
			}
			if (RedisPing.answers(HOST, this.port, 500)) {
				return;
			}
			try {
				// Polling: the process signals readiness only by answering on its port.
				Thread.sleep(25);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				stop();
				throw new IllegalStateException("Interrupted while waiting for redis-server to start", ex);
			}
		}
		String log = log();
		stop();
		throw new IllegalStateException(
				"redis-server did not answer on port " + this.port + " within " + READY_TIMEOUT_MILLIS + " ms: " + log);
	}

	/**
	 * Registers this server as a singleton of the bean factory that the factory destroys, stopping the server, when
	 * its context closes, and also when the context fails to start.
	 * @throws IllegalStateException (after stopping the server) if the bean factory cannot destroy singletons
	 */
	public void bindTo(ConfigurableListableBeanFactory beanFactory, String beanName) {
		if (!(beanFactory instanceof DefaultSingletonBeanRegistry registry)) {
			stop();
			throw new IllegalStateException("Cannot tie an embedded Redis to " + beanFactory.getClass().getName());
		}
		beanFactory.registerSingleton(beanName, this);
		// A singleton registered by hand is not destroyed with the context unless it is declared disposable.
		registry.registerDisposableBean(beanName, this);
	}

	public String host() {
		return HOST;
	}

	public int port() {
		return this.port;
	}

	/** Where the executable came from, for humans. */
	public String description() {
		return this.binary.file() + " (from " + this.binary.origin() + ")";
	}

	/** The process id of the server. */
	public long pid() {
		return this.process.pid();
	}

	@Override
	public void destroy() {
		stop();
	}

	/** Stops the server (SIGTERM, then SIGKILL if it lingers) and removes its working directory. */
	public void stop() {
		if (this.process.isAlive()) {
			this.process.destroy();
			try {
				if (!this.process.waitFor(5, TimeUnit.SECONDS)) {
					this.process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
				}
			}
			catch (InterruptedException ex) {
				this.process.destroyForcibly();
				Thread.currentThread().interrupt();
			}
			logger.info("Stopped embedded redis-server on " + HOST + ":" + this.port);
		}
		deleteQuietly(this.dir);
	}

	private String log() {
		try {
			return Files.readString(this.dir.resolve("redis.log")).strip();
		}
		catch (IOException ex) {
			return "(no output)";
		}
	}

	private static int freePort() {
		try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName(HOST))) {
			return socket.getLocalPort();
		}
		catch (IOException ex) {
			throw new UncheckedIOException("No free port on " + HOST, ex);
		}
	}

	private static Path createWorkDirectory() {
		try {
			return Files.createTempDirectory("distlock-redis-");
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not create a directory for redis-server", ex);
		}
	}

	private static void deleteQuietly(Path dir) {
		try (Stream<Path> paths = Files.walk(dir)) {
			paths.sorted(Comparator.reverseOrder()).forEach((path) -> path.toFile().delete());
		}
		catch (IOException ex) {
			// A leftover temporary directory is harmless; the server itself is what must not outlive its context.
		}
	}

}
