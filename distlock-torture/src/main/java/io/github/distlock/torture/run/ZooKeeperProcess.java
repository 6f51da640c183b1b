package io.github.distlock.torture.run;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.github.distlock.processes.Signals;

/**
 * A ZooKeeper server in a JVM of its own, on loopback and a free port, so that it can be stopped, continued and
 * killed by PID like a real server: a standalone one ({@code ZooKeeperServerMain}), or a member of an ensemble
 * ({@code QuorumPeerMain}, see {@link ZooKeeperEnsemble}). Its data directory stays when the process
 * dies: a restart on the same port and the same directory recovers every session and node from the transaction log,
 * as a production server does.
 * <p>
 * The server runs with two system properties a production server would not have, or need not have:
 * <ul>
 * <li>{@code zookeeper.forceSync=no}: a transaction is written to the operating system before it is answered, but
 * not forced to the disk. Every acquisition and release is a transaction, and an {@code fsync} for each on a slow
 * disk would make the lock server, rather than the faults, set the pace. A SIGKILL loses nothing the operating
 * system was given (only a crash of the machine would), so a restart still recovers everything answered;</li>
 * <li>{@code zookeeper.4lw.commands.whitelist=*}: ZooKeeper answers only {@code srvr} among its four-letter words
 * unless told otherwise. The run asks {@code srvr} whether the server serves; the others ({@code dump}: each
 * session with its ephemeral nodes; {@code cons}: each connection; {@code mntr}) are for whoever looks into a
 * running torture, with {@code echo dump | nc 127.0.0.1 PORT}.</li>
 * </ul>
 * The server's log goes to {@code zookeeper.log} in the run directory (session expiries are logged there), its data to
 * {@code zookeeper-data}, whose transaction log {@code ZooKeeperTransactions} prints.
 */
final class ZooKeeperProcess implements AutoCloseable {

	private static final String STANDALONE_MAIN = "org.apache.zookeeper.server.ZooKeeperServerMain";

	private static final String QUORUM_MAIN = "org.apache.zookeeper.server.quorum.QuorumPeerMain";

	/** What {@code srvr} says of a standalone server that serves. */
	private static final List<String> STANDALONE_MODES = List.of("standalone");

	/** What {@code srvr} says of an ensemble's member that serves: it leads, or it follows the leader in sync. */
	private static final List<String> MEMBER_MODES = List.of("leader", "follower");

	private static final Duration START = Duration.ofSeconds(60);

	/** How many ports a standalone server tries: each was free when chosen, and another process may take it first. */
	private static final int PORT_ATTEMPTS = 3;

	private final int port;

	private final Path log;

	private final List<String> command;

	private final List<String> servingModes;

	/** The data directory its configuration names: what tells this server from another on the same port. */
	private final String dataDir;

	private Process process;

	private ZooKeeperProcess(String main, List<String> servingModes, int port, Path config, Path log) {
		this.port = port;
		this.log = log;
		this.servingModes = servingModes;
		this.dataDir = dataDirOf(config);
		List<String> options = JavaCommand.options("128m", "-Dzookeeper.forceSync=no",
				"-Dzookeeper.4lw.commands.whitelist=*",
				// No admin web server: it would want port 8080, and nothing here asks it anything.
				"-Dzookeeper.admin.enableServer=false",
				// Transaction log files of 1 MB rather than 64 MB (sparse, but alarming in a listing).
				"-Dzookeeper.preAllocSize=1024",
				"-Dlogback.configurationFile=io/github/distlock/torture/run/zookeeper-logback.xml");
		this.command = JavaCommand.of(options, main, List.of(config.toString()));
	}

	/**
	 * Starts a server whose data and log live under the directory, and waits until it serves.
	 * @param tick ZooKeeper's tick: session timeouts are granted between 2 and 20 ticks, and sessions expire on a
	 * tick
	 */
	static ZooKeeperProcess start(Path directory, Duration tick) {
		for (int attempt = 1;; attempt++) {
			try {
				return start(directory, tick, freePort());
			}
			catch (PortTaken ex) {
				if (attempt == PORT_ATTEMPTS) {
					throw ex;
				}
			}
			catch (IOException ex) {
				throw new UncheckedIOException("Could not start a ZooKeeper server", ex);
			}
		}
	}

	/** Starts a server on the given port; {@link PortTaken} if another process has it. */
	static ZooKeeperProcess start(Path directory, Duration tick, int port) throws IOException {
		Path data = Files.createDirectories(directory.resolve("zookeeper-data"));
		Path config = directory.resolve("zookeeper.cfg");
		Files.writeString(config, String.join("\n", "tickTime=" + tick.toMillis(), "dataDir=" + data,
				"clientPortAddress=127.0.0.1", "clientPort=" + port,
				// Every worker connects from the same address: no limit per address (the default is 60).
				"maxClientCnxns=0",
				// Clients ask for their session timeout (the workers for the run's); a ceiling above the default 20
				// ticks lets a test's client ask for one that outlasts a restart on a busy machine.
				"maxSessionTimeout=60000", ""), StandardCharsets.UTF_8);
		ZooKeeperProcess server = new ZooKeeperProcess(STANDALONE_MAIN, STANDALONE_MODES, port, config,
				directory.resolve("zookeeper.log"));
		try {
			server.launch();
		}
		catch (PortTaken ex) {
			server.kill();
			throw ex;
		}
		return server;
	}

	/**
	 * A member of an ensemble, not started yet: its configuration (with the ensemble's {@code server.N} lines) and its
	 * data directory (with its {@code myid}) written by the ensemble. Its members are started side by side
	 * ({@link #spawn()}), then awaited ({@link #awaitServing()}): none serves before a quorum has elected a leader.
	 */
	static ZooKeeperProcess member(int clientPort, Path config, Path log) {
		return new ZooKeeperProcess(QUORUM_MAIN, MEMBER_MODES, clientPort, config, log);
	}

	private static String dataDirOf(Path config) {
		try {
			return Files.readAllLines(config, StandardCharsets.UTF_8).stream()
				.filter((line) -> line.startsWith("dataDir="))
				.map((line) -> line.substring("dataDir=".length()).strip())
				.findFirst()
				.orElseThrow(() -> new IllegalStateException("No dataDir in " + config));
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private static int freePort() throws IOException {
		try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
			return socket.getLocalPort();
		}
	}

	private void launch() throws IOException {
		spawn();
		awaitServing();
	}

	/** Starts the process, without waiting for it to serve. */
	void spawn() throws IOException {
		this.process = new ProcessBuilder(this.command).redirectErrorStream(true)
			.redirectOutput(ProcessBuilder.Redirect.appendTo(this.log.toFile()))
			.start();
	}

	/**
	 * Polls {@code srvr} until the server serves: it accepts connections (and answers four-letter words) before it
	 * has loaded its data (a member: before it has joined a leader), and says so. Its answer counts only once
	 * {@code conf} names this server's data directory: the port was free when chosen, but another server (a build's
	 * other tests run beside this one) may have taken it before this one bound it, and would answer in its place.
	 */
	void awaitServing() {
		long deadline = System.nanoTime() + START.toNanos();
		String last = "no answer";
		while (System.nanoTime() - deadline < 0) {
			if (!this.process.isAlive()) {
				if (logSays("Address already in use")) {
					throw new PortTaken(this.port, this.log);
				}
				throw new IllegalStateException("The ZooKeeper server exited at start-up; see " + this.log);
			}
			try {
				last = fourLetterWord("srvr");
				if (this.servingModes.contains(modeIn(last))) {
					if (!answersForItsData()) {
						throw new PortTaken(this.port, this.log);
					}
					return;
				}
			}
			catch (IOException ex) {
				last = ex.toString();
			}
			try {
				// Polling for readiness: the process gives no other sign that it serves.
				TimeUnit.MILLISECONDS.sleep(20);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException(ex);
			}
		}
		throw new IllegalStateException("The ZooKeeper server on port " + this.port + " did not serve within " + START
				+ " (last answer: " + last.strip() + "); see " + this.log);
	}

	private boolean logSays(String text) {
		try {
			return Files.readString(this.log, StandardCharsets.UTF_8).contains(text);
		}
		catch (IOException ex) {
			return false;
		}
	}

	/** Whether the server on the port is this one: {@code conf} names its data directory. */
	private boolean answersForItsData() throws IOException {
		return fourLetterWord("conf").lines().anyMatch((line) -> line.startsWith("dataDir=" + this.dataDir));
	}

	/** Asks the server a four-letter word and returns its whole answer. */
	String fourLetterWord(String word) throws IOException {
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), this.port), 1000);
			socket.setSoTimeout(1000);
			OutputStream out = socket.getOutputStream();
			out.write(word.getBytes(StandardCharsets.US_ASCII));
			out.flush();
			InputStream in = socket.getInputStream();
			return new String(in.readAllBytes(), StandardCharsets.UTF_8);
		}
	}

	/**
	 * What {@code srvr} says the server is ({@code standalone}, {@code leader}, {@code follower}), or empty if it
	 * does not answer or does not serve (a member looking for its leader, or syncing with it).
	 */
	String mode() {
		try {
			return modeIn(fourLetterWord("srvr"));
		}
		catch (IOException ex) {
			return "";
		}
	}

	private static String modeIn(String srvr) {
		return srvr.lines()
			.filter((line) -> line.startsWith("Mode: "))
			.map((line) -> line.substring("Mode: ".length()).strip())
			.findFirst()
			.orElse("");
	}

	int port() {
		return this.port;
	}

	String connectString() {
		return "127.0.0.1:" + this.port;
	}

	long pid() {
		return this.process.pid();
	}

	/** SIGSTOP: the server keeps its sockets (the kernel even accepts new connections) but answers nothing. */
	void pause() {
		Signals.stop(pid());
	}

	/** SIGCONT after {@link #pause()}. */
	void resume() {
		Signals.send("CONT", pid());
	}

	/** SIGKILL, then waits until the process is gone, and with it its listening socket. */
	void kill() {
		if (!this.process.isAlive()) {
			return;
		}
		Signals.send("KILL", pid());
		try {
			if (!this.process.waitFor(10, TimeUnit.SECONDS)) {
				throw new IllegalStateException("The ZooKeeper server (pid " + pid() + ") outlived SIGKILL");
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	/**
	 * Starts a new server process on the same port and data directory (after {@link #kill()}), and waits until it
	 * serves, its sessions and nodes recovered.
	 */
	void restart() {
		kill();
		try {
			launch();
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not start the ZooKeeper server again", ex);
		}
	}

	@Override
	public void close() {
		if (this.process != null && this.process.isAlive()) {
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

	/** The port was taken by another process between its choice and this server's start. */
	static final class PortTaken extends IllegalStateException {

		PortTaken(int port, Path log) {
			super("Port " + port + " was taken by another process before the ZooKeeper server could bind it; see "
					+ log);
		}

	}

}
