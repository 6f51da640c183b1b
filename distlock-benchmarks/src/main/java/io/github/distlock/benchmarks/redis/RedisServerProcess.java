package io.github.distlock.benchmarks.redis;

import java.io.File;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import redis.embedded.core.ExecutableProvider;

/**
 * A redis-server process of the benchmark's own: on 127.0.0.1 and a free port, with persistence off (a snapshot or
 * an append-only fsync in the middle of a round would be noise), in a temporary directory removed on close.
 * <p>
 * Uses the {@code redis-server} on the PATH, else the binary shipped in the embedded-redis artifact.
 */
final class RedisServerProcess implements AutoCloseable {

	private final Process process;

	private final int port;

	private final Path dir;

	private final String binary;

	private RedisServerProcess(Process process, int port, Path dir, String binary) {
		this.process = process;
		this.port = port;
		this.dir = dir;
		this.binary = binary;
	}

	static RedisServerProcess start() {
		try {
			File binary = findBinary();
			Path dir = Files.createTempDirectory("distlock-bench-redis-");
			int port = freePort();
			Process process = new ProcessBuilder(List.of(binary.getAbsolutePath(), "--port", String.valueOf(port),
					"--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir.toString()))
				.redirectErrorStream(true)
				.redirectOutput(dir.resolve("redis.log").toFile())
				.start();
			RedisServerProcess server = new RedisServerProcess(process, port, dir, binary.getAbsolutePath());
			server.awaitReady();
			return server;
		}
		catch (IOException ex) {
			throw new IllegalStateException("Could not start redis-server: " + ex.getMessage(), ex);
		}
	}

	private static File findBinary() throws IOException {
		String path = System.getenv("PATH");
		if (path != null) {
			for (String dir : path.split(File.pathSeparator)) {
				File candidate = new File(dir, "redis-server");
				if (candidate.isFile() && candidate.canExecute()) {
					return candidate;
				}
			}
		}
		File shipped = ExecutableProvider.newJarResourceProvider().get();
		shipped.setExecutable(true);
		return shipped;
	}

	private static int freePort() throws IOException {
		try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
			return socket.getLocalPort();
		}
	}

	private void awaitReady() {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
		RuntimeException last = null;
		while (System.nanoTime() < deadline) {
			if (!this.process.isAlive()) {
				throw new IllegalStateException("redis-server exited at start-up: " + log());
			}
			try (RespConnection connection = new RespConnection(host(), this.port)) {
				if ("PONG".equals(connection.call("PING"))) {
					return;
				}
			}
			catch (RuntimeException ex) {
				last = ex;
			}
			try {
				// The process gives no other sign that it accepts connections than answering.
				Thread.sleep(20);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				break;
			}
		}
		close();
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

	String host() {
		return "127.0.0.1";
	}

	int port() {
		return this.port;
	}

	String binary() {
		return this.binary;
	}

	@Override
	public void close() {
		this.process.destroy();
		try {
			if (!this.process.waitFor(10, TimeUnit.SECONDS)) {
				this.process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		try (Stream<Path> files = Files.walk(this.dir)) {
			files.sorted(Comparator.reverseOrder()).forEach((file) -> file.toFile().delete());
		}
		catch (IOException ex) {
			// a temporary directory left behind is harmless
		}
	}

}
