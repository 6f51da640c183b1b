package io.github.distlock.benchmarks.etcd;

import java.io.File;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The etcd server of the benchmark: one member, a process of the machine's etcd binary (Debian's {@code etcd-server}
 * package puts it at /usr/bin/etcd), on free loopback ports, with a fresh data directory of its own, in memory on
 * /dev/shm where the machine has it. etcd keeps its fsync (no {@code --unsafe-no-fsync}); on /dev/shm that is a
 * system call that touches no disk. The process is killed and its directory deleted at the end, or when the JVM
 * exits first.
 * <p>
 * A starter of the benchmark's own: distlock-etcd's test fixture ({@code TestEtcd}) is package-private test code of
 * that module, and does more (clusters, frozen members) than one server needs.
 */
final class EtcdProcess implements AutoCloseable {

	private static final Duration START_TIMEOUT = Duration.ofSeconds(30);

	private static final int START_ATTEMPTS = 3;

	private static final Duration HTTP_TIMEOUT = Duration.ofSeconds(5);

	private final Process process;

	private final Path directory;

	private final URI clientUrl;

	private final HttpClient http = HttpClient.newBuilder().connectTimeout(HTTP_TIMEOUT).build();

	private final Thread cleanup = new Thread(this::destroy, "etcd-benchmark-cleanup");

	private EtcdProcess(Path binary, Path directory, int clientPort, int peerPort) throws IOException {
		this.directory = directory;
		this.clientUrl = URI.create("http://127.0.0.1:" + clientPort);
		String peerUrl = "http://127.0.0.1:" + peerPort;
		List<String> command = List.of(binary.toString(), "--name", "benchmark", "--data-dir",
				directory.resolve("data").toString(), "--listen-client-urls", this.clientUrl.toString(),
				"--advertise-client-urls", this.clientUrl.toString(), "--listen-peer-urls", peerUrl,
				"--initial-advertise-peer-urls", peerUrl, "--initial-cluster", "benchmark=" + peerUrl,
				"--initial-cluster-state", "new", "--logger", "zap", "--log-outputs", "stderr", "--log-level", "warn");
		this.process = new ProcessBuilder(command).redirectErrorStream(true)
			.redirectOutput(directory.resolve("etcd.log").toFile())
			.start();
		Runtime.getRuntime().addShutdownHook(this.cleanup);
	}

	/** Starts etcd and returns once it answers; another pair of ports if a port was taken meanwhile. */
	static EtcdProcess start() throws Exception {
		Path binary = binary();
		Exception failure = null;
		for (int attempt = 0; attempt < START_ATTEMPTS; attempt++) {
			int[] ports = freePorts(2);
			EtcdProcess etcd = new EtcdProcess(binary, dataDirectory(), ports[0], ports[1]);
			try {
				etcd.awaitHealthy();
				return etcd;
			}
			catch (Exception ex) {
				etcd.close();
				failure = ex;
			}
		}
		throw failure;
	}

	/** The etcd binary: the first on the PATH, else Debian's place, else /usr/local/bin. */
	static Path binary() {
		List<Path> candidates = new ArrayList<>();
		String path = System.getenv("PATH");
		if (path != null) {
			for (String directory : path.split(File.pathSeparator)) {
				if (!directory.isEmpty()) {
					candidates.add(Path.of(directory, "etcd"));
				}
			}
		}
		candidates.add(Path.of("/usr/bin/etcd"));
		candidates.add(Path.of("/usr/local/bin/etcd"));
		return candidates.stream()
			.filter((candidate) -> Files.isRegularFile(candidate) && Files.isExecutable(candidate))
			.findFirst()
			.orElseThrow(() -> new IllegalStateException("No etcd binary on the PATH, at /usr/bin/etcd or at "
					+ "/usr/local/bin/etcd: the etcd benchmark starts a real etcd server. Install it with "
					+ "'apt-get install etcd-server' (Debian/Ubuntu; its own service need not run), or put an etcd "
					+ "3.4+ binary on the PATH."));
	}

	/** Whether the data directory is in memory (/dev/shm), so that etcd's fsync touches no disk. */
	boolean inMemory() {
		return this.directory.startsWith(Path.of("/dev/shm"));
	}

	URI clientUrl() {
		return this.clientUrl;
	}

	/** The server's release, as its {@code /version} endpoint states it. */
	String version() throws IOException, InterruptedException {
		String answer = get("/version");
		int key = answer.indexOf("\"etcdserver\":\"");
		if (key < 0) {
			throw new IllegalStateException("No server version in etcd's /version answer: " + answer);
		}
		int start = key + "\"etcdserver\":\"".length();
		return answer.substring(start, answer.indexOf('"', start));
	}

	/** Everything the server counts, in Prometheus' text format, from its {@code /metrics} endpoint. */
	String metrics() throws IOException, InterruptedException {
		return get("/metrics");
	}

	private String get(String path) throws IOException, InterruptedException {
		HttpRequest request = HttpRequest.newBuilder(this.clientUrl.resolve(path)).timeout(HTTP_TIMEOUT).build();
		HttpResponse<String> response = this.http.send(request, HttpResponse.BodyHandlers.ofString());
		if (response.statusCode() != 200) {
			throw new IOException("etcd answered " + response.statusCode() + " to GET " + path + ": "
					+ response.body());
		}
		return response.body();
	}

	/** Waits until {@code /health} says so: the member is its own leader and serves reads through consensus. */
	private void awaitHealthy() throws Exception {
		long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
		while (true) {
			if (!this.process.isAlive()) {
				throw new IllegalStateException("etcd exited at start: " + logTail());
			}
			try {
				if (get("/health").contains("\"health\":\"true\"")) {
					return;
				}
			}
			catch (IOException ex) {
				// Not listening yet, or not ready (503 until it has a leader).
			}
			if (System.nanoTime() - deadline > 0) {
				throw new IllegalStateException("etcd did not become healthy within " + START_TIMEOUT + ": "
						+ logTail());
			}
			Thread.sleep(50);
		}
	}

	private String logTail() {
		try {
			List<String> lines = Files.readAllLines(this.directory.resolve("etcd.log"));
			return String.join("\n", lines.subList(Math.max(0, lines.size() - 20), lines.size()));
		}
		catch (IOException ex) {
			return "(no log: " + ex.getMessage() + ")";
		}
	}

	private static Path dataDirectory() throws IOException {
		Path shm = Path.of("/dev/shm");
		if (Files.isDirectory(shm) && Files.isWritable(shm)) {
			return Files.createTempDirectory(shm, "distlock-etcd-benchmark-");
		}
		return Files.createTempDirectory("distlock-etcd-benchmark-");
	}

	/** Ports free now: all held open until every one is chosen, so that none is chosen twice. */
	private static int[] freePorts(int count) throws IOException {
		List<ServerSocket> sockets = new ArrayList<>();
		try {
			int[] ports = new int[count];
			for (int i = 0; i < count; i++) {
				ServerSocket socket = new ServerSocket(0, 0, InetAddress.getLoopbackAddress());
				sockets.add(socket);
				ports[i] = socket.getLocalPort();
			}
			return ports;
		}
		finally {
			for (ServerSocket socket : sockets) {
				socket.close();
			}
		}
	}

	@Override
	public void close() {
		destroy();
		try {
			Runtime.getRuntime().removeShutdownHook(this.cleanup);
		}
		catch (IllegalStateException ex) {
			// The JVM is shutting down: the hook runs, or ran, destroy itself.
		}
	}

	/** Kills the process and deletes its data directory; runs again harmlessly. */
	private void destroy() {
		this.process.destroyForcibly();
		try {
			this.process.waitFor(10, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		try (Stream<Path> files = Files.walk(this.directory)) {
			files.sorted(Comparator.reverseOrder()).forEach((file) -> file.toFile().delete());
		}
		catch (IOException ex) {
			// A temporary directory: left to the system.
		}
	}

}
