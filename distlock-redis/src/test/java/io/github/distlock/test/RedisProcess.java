package io.github.distlock.test;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import io.github.distlock.testsupport.HostBinary;

/**
 * A real {@code redis-server} process on loopback and a free port, started from a binary on disk, with the signals
 * the failure tests need: pause (SIGSTOP), resume (SIGCONT), kill (SIGKILL) and restart on the same port with an
 * empty memory.
 */
public final class RedisProcess implements RedisServer {

	private final HostBinary binary;

	private final int port;

	/** Starts on a new port after one was taken between its choice and the bind: twice should be rare already. */
	private static final int PORT_ATTEMPTS = 3;

	private final Path dir;

	/** Server arguments beyond the fixture's own, such as {@code --cluster-enabled yes}. */
	private final List<String> extraArgs;

	private Process process;

	private RedisProcess(HostBinary binary, int port, List<String> extraArgs) throws IOException {
		this.binary = binary;
		this.port = port;
		this.extraArgs = extraArgs;
		this.dir = Files.createTempDirectory("distlock-redis-");
	}

	/** Starts a server from the given binary on a free port. */
	public static RedisProcess start(HostBinary binary) {
		return start(binary, List.of());
	}

	/** Starts a server from the given binary on a free port, with more server arguments. */
	public static RedisProcess start(HostBinary binary, List<String> extraArgs) {
		for (int attempt = 1;; attempt++) {
			try {
				RedisProcess redis = new RedisProcess(binary, freePort(), List.copyOf(extraArgs));
				if (redis.launch()) {
					return redis;
				}
				redis.process.destroyForcibly();
				if (attempt == PORT_ATTEMPTS) {
					throw new IllegalStateException("redis-server found its ports taken " + PORT_ATTEMPTS
							+ " times: " + redis.log());
				}
			}
			catch (IOException ex) {
				throw new IllegalStateException("Could not start " + binary.path() + ": " + ex.getMessage(), ex);
			}
		}
	}

	static int freePort() throws IOException {
		try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
			socket.setReuseAddress(true);
			return socket.getLocalPort();
		}
	}

	/**
	 * Launches the server and waits until it answers: true, or false when a port it needs was taken between the
	 * choice and the bind (a cluster node's bus port, 10000 above its own, is not chosen free, only likely so).
	 */
	private boolean launch() throws IOException {
		List<String> arguments = new ArrayList<>(List.of("--port", String.valueOf(this.port), "--bind", "127.0.0.1",
				"--save", "", "--appendonly", "no", "--dir", this.dir.toString(), "--notify-keyspace-events", "Kgx"));
		arguments.addAll(this.extraArgs);
		ProcessBuilder builder = this.binary.processBuilder(arguments);
		builder.redirectErrorStream(true);
		builder.redirectOutput(this.dir.resolve("redis.log").toFile());
		this.process = builder.start();
		return awaitReady();
	}

	private boolean awaitReady() {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
		RuntimeException last = null;
		while (System.nanoTime() < deadline) {
			if (!this.process.isAlive()) {
				String log = log();
				if (log.contains("Address already in use")) {
					return false;
				}
				throw new IllegalStateException("redis-server exited at start-up: " + log);
			}
			try (RespClient client = client()) {
				if ("PONG".equals(client.call("PING"))) {
					// The port was free when chosen; another redis-server (a build's other tests run beside these)
					// may have bound it first and answered here, while this one fails to bind and exits.
					return String.valueOf(client.call("INFO", "server"))
						.contains("process_id:" + this.process.pid() + "\r\n");
				}
			}
			catch (RuntimeException ex) {
				last = ex;
			}
			try {
				// Polling for readiness: the process gives no other sign that it accepts connections.
				Thread.sleep(20);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException(ex);
			}
		}
		throw new IllegalStateException("redis-server did not answer on port " + this.port + ": " + log(), last);
	}

	private String log() {
		try {
			return Files.readString(this.dir.resolve("redis.log"));
		}
		catch (IOException ex) {
			return "(no log)";
		}
	}

	@Override
	public String host() {
		return "127.0.0.1";
	}

	@Override
	public int port() {
		return this.port;
	}

	/** The executable this server runs, for reports that say what was measured. */
	public HostBinary binary() {
		return this.binary;
	}

	/** Whether the process runs (not killed, or started again since). */
	public boolean isAlive() {
		return this.process != null && this.process.isAlive();
	}

	public long pid() {
		return this.process.pid();
	}

	/** SIGSTOP: the server keeps its sockets but answers nothing, like a stalled host. */
	@Override
	public void pause() {
		signal("STOP");
	}

	/** SIGCONT after {@link #pause()}. */
	@Override
	public void resume() {
		signal("CONT");
	}

	/** SIGKILL, then waits for the process to be gone. */
	@Override
	public void kill() {
		if (!this.process.isAlive()) {
			return;
		}
		signal("KILL");
		try {
			this.process.waitFor(10, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/** Kills the server (if it still runs) and starts a new one, with an empty memory, on the same port. */
	@Override
	public void restart() {
		kill();
		try {
			if (!launch()) {
				throw new IllegalStateException("redis-server could not have its port back: " + log());
			}
		}
		catch (IOException ex) {
			throw new IllegalStateException(ex);
		}
	}

	private void signal(String name) {
		try {
			Process kill = new ProcessBuilder(List.of("kill", "-" + name, String.valueOf(pid())))
				.redirectErrorStream(true)
				.start();
			String output = new String(kill.getInputStream().readAllBytes());
			if (!kill.waitFor(5, TimeUnit.SECONDS) || kill.exitValue() != 0) {
				throw new IllegalStateException("kill -" + name + " " + pid() + " failed: " + output + " (alive: "
						+ this.process.isAlive() + ", log: " + log() + ")");
			}
		}
		catch (IOException ex) {
			throw new IllegalStateException(ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	@Override
	public void close() {
		if (this.process != null && this.process.isAlive()) {
			signal("CONT");
			this.process.destroyForcibly();
			try {
				this.process.waitFor(10, TimeUnit.SECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}
		deleteDirectory();
	}

	private void deleteDirectory() {
		try (Stream<Path> files = Files.walk(this.dir)) {
			files.sorted(Comparator.reverseOrder()).forEach((file) -> file.toFile().delete());
		}
		catch (IOException ex) {
			// a temporary directory left behind is harmless
		}
	}

}
