package io.github.distlock.processes;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;

/**
 * A real {@code redis-server} process on loopback that persists nothing (no snapshots, no append-only file, a
 * temporary working directory removed when it stops). Started on a free port, or a given one; ready once it answers
 * as itself.
 */
public final class RedisServerProcess implements AutoCloseable {

	/** Loopback only: nothing outside this machine should reach a server without a password. */
	public static final String HOST = "127.0.0.1";

	/** Fresh free ports to try: another process may take one between our probe and the server's bind. */
	private static final int PORT_ATTEMPTS = 3;

	private static final long READY_TIMEOUT_MILLIS = 15_000;

	private final RedisServerCommand command;

	private final int port;

	private final List<String> extraArguments;

	private final Path dir;

	private @Nullable Process process;

	private RedisServerProcess(RedisServerCommand command, int port, List<String> extraArguments, Path dir) {
		this.command = command;
		this.port = port;
		this.extraArguments = extraArguments;
		this.dir = dir;
	}

	/**
	 * Starts a server and waits until it answers.
	 * @param command how to run the executable
	 * @param port the port to listen on, or 0 for a free one
	 * @param extraArguments server arguments beyond the launcher's own, such as {@code --cluster-enabled yes}
	 * @throws IllegalStateException if the server could not be run, exited, or did not answer in time
	 */
	public static RedisServerProcess start(RedisServerCommand command, int port, List<String> extraArguments) {
		int attempts = (port == 0) ? PORT_ATTEMPTS : 1;
		for (int attempt = 1;; attempt++) {
			RedisServerProcess server = new RedisServerProcess(command, (port == 0) ? freePort() : port,
					List.copyOf(extraArguments), TemporaryDirectory.create("distlock-redis-", "redis-server"));
			if (server.launch()) {
				return server;
			}
			String log = server.log();
			server.close();
			if (attempt == attempts) {
				throw new IllegalStateException("redis-server could not bind port " + server.port
						+ ((attempts > 1) ? " (the last of " + attempts + " free ports tried)" : "") + ": " + log);
			}
		}
	}

	/**
	 * Runs the process and waits until it answers: true, or false when its port was taken between the choice and the
	 * bind (a cluster node's bus port, 10000 above its own, is not chosen free, only likely so).
	 */
	private boolean launch() {
		List<String> arguments = new ArrayList<>(List.of("--port", String.valueOf(this.port), "--bind", HOST, "--save",
				"", "--appendonly", "no", "--dir", this.dir.toString()));
		arguments.addAll(this.extraArguments);
		try {
			this.process = this.command.processBuilder(arguments)
				.redirectErrorStream(true)
				.redirectOutput(this.dir.resolve("redis.log").toFile())
				.start();
		}
		catch (IOException ex) {
			close();
			throw new IllegalStateException("Could not run redis-server: " + ex.getMessage(), ex);
		}
		return awaitReady(this.process);
	}

	private boolean awaitReady(Process started) {
		long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(READY_TIMEOUT_MILLIS);
		while (System.nanoTime() - deadline < 0) {
			if (!started.isAlive()) {
				String log = log();
				if (log.contains("Address already in use")) {
					return false;
				}
				close();
				throw new IllegalStateException("redis-server exited at start-up on port " + this.port + ": " + log);
			}
			String info = ServerInfoProbe.serverInfo(HOST, this.port, 500);
			if (info != null) {
				// Another server (a build's other tests run beside these) may have bound the port first and answered
				// here, while this one fails to bind and exits.
				return info.contains("process_id:" + started.pid() + "\r\n");
			}
			try {
				// Polling: the process signals readiness only by answering on its port.
				Thread.sleep(20);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				close();
				throw new IllegalStateException("Interrupted while waiting for redis-server to start", ex);
			}
		}
		String log = log();
		close();
		throw new IllegalStateException(
				"redis-server did not answer on port " + this.port + " within " + READY_TIMEOUT_MILLIS + " ms: " + log);
	}

	public String host() {
		return HOST;
	}

	public int port() {
		return this.port;
	}

	/** The process id of the server (of the latest one, after {@link #restart()}). */
	public long pid() {
		return running().pid();
	}

	/** Whether the process runs: not stopped or killed, or started again since. */
	public boolean isAlive() {
		return this.process != null && this.process.isAlive();
	}

	/** Where the server runs and writes its log: removed when it stops. */
	Path workDirectory() {
		return this.dir;
	}

	/** What the server printed, for failure messages. */
	public String log() {
		try {
			return Files.readString(this.dir.resolve("redis.log")).strip();
		}
		catch (IOException ex) {
			return "(no output)";
		}
	}

	/**
	 * SIGSTOP: the server keeps its sockets but answers nothing, like a stalled host. Returns once the kernel shows
	 * it stopped.
	 */
	public void pause() {
		Signals.stop(pid());
	}

	/** SIGCONT after {@link #pause()}. */
	public void resume() {
		Signals.send("CONT", pid());
	}

	/** SIGKILL, then waits for the process to be gone: a crash, with no chance to answer anyone. */
	public void kill() {
		Process running = this.process;
		if (running == null || !running.isAlive()) {
			return;
		}
		running.destroyForcibly();
		awaitExit(running, 10);
	}

	/** Kills the server (if it still runs) and starts a new one, with an empty memory, on the same port. */
	public void restart() {
		kill();
		if (!launch()) {
			throw new IllegalStateException("redis-server could not have port " + this.port + " back: " + log());
		}
	}

	/**
	 * Stops the server and removes its working directory. With SIGKILL: the server keeps nothing to save, a paused
	 * one takes it too, and a master told SIGTERM would wait for lagging replicas first (Redis 7).
	 */
	@Override
	public void close() {
		kill();
		TemporaryDirectory.deleteQuietly(this.dir);
	}

	private Process running() {
		Process running = this.process;
		if (running == null) {
			throw new IllegalStateException("redis-server on port " + this.port + " was never started");
		}
		return running;
	}

	private static boolean awaitExit(Process process, int seconds) {
		try {
			return process.waitFor(seconds, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			process.destroyForcibly();
			Thread.currentThread().interrupt();
			return false;
		}
	}

	/** A port free on loopback now: another process may take it before it is bound. */
	public static int freePort() {
		try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName(HOST))) {
			return socket.getLocalPort();
		}
		catch (IOException ex) {
			throw new UncheckedIOException("No free port on " + HOST, ex);
		}
	}

}
