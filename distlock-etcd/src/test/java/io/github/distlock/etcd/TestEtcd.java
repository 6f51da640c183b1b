package io.github.distlock.etcd;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.ClientBuilder;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.cluster.Member;
import io.etcd.jetcd.options.DeleteOption;
import io.etcd.jetcd.options.GetOption;

import io.github.distlock.testsupport.HostBinary;

/**
 * Real etcd servers for the tests: one member, or a cluster of several on loopback, each a process of Debian's
 * {@code etcd} binary with a data directory of its own (in memory where the machine has /dev/shm), on free ports,
 * killed (with its process tree) and deleted at the end. A client of its own reads and deletes lock keys behind the
 * engines' backs.
 * <p>
 * Elections are ten times faster than etcd's defaults (50 ms heartbeat, 500 ms election timeout), which also brings
 * etcd's shortest lease down to one second, so that tests of lease expiry are quick.
 */
public final class TestEtcd implements AutoCloseable {

	/**
	 * The members' election timeout ({@code --election-timeout}): a follower that hears no leader for this long (etcd
	 * draws it between once and twice this) campaigns. Engines on these clusters are told it (the torture run's
	 * workers too, as {@code distlock.etcd.election-timeout}).
	 */
	public static final Duration ELECTION_TIMEOUT = Duration.ofMillis(500);

	/** The leader's heartbeat ({@code --heartbeat-interval}): a tenth of the election timeout, as etcd advises. */
	private static final Duration HEARTBEAT = Duration.ofMillis(50);

	private static final Duration START_TIMEOUT = Duration.ofSeconds(30);

	private static final int START_ATTEMPTS = 3;

	private final List<Node> nodes;

	private final Client admin;

	private final LockKeys keys = new LockKeys(EtcdLockEngine.DEFAULT_ROOT);

	private TestEtcd(List<Node> nodes) {
		this.nodes = nodes;
		this.admin = newClient(all(), UnaryOperator.identity());
	}

	/** A one-member etcd, answering. */
	public static TestEtcd single() throws Exception {
		return cluster(1);
	}

	/** A cluster of this many members on loopback, answering once it has a leader. */
	public static TestEtcd cluster(int size) throws Exception {
		Path binary = etcdBinary();
		Exception last = null;
		for (int attempt = 0; attempt < START_ATTEMPTS; attempt++) {
			List<Node> nodes = Node.allocate(size);
			// One token for the members of one cluster: a member of another cluster on a reused port is refused.
			String token = "distlock-" + UUID.randomUUID();
			try {
				for (Node node : nodes) {
					node.start(binary, nodes, token);
				}
				awaitAnswer(nodes);
				return new TestEtcd(nodes);
			}
			catch (Exception ex) {
				// A port taken between choosing and binding it: another try on other ports.
				nodes.forEach(Node::destroy);
				last = ex;
			}
		}
		throw last;
	}

	/**
	 * The etcd binary: the machine's, or Debian's {@code etcd-server} fetched by the build (see {@link HostBinary}).
	 * Fails (never skips) when neither can be had: these tests prove the engine on a real server.
	 */
	static Path etcdBinary() {
		return HostBinary.of("etcd", "usr/bin/etcd", "etcd-server").path();
	}

	private static void awaitAnswer(List<Node> nodes) throws Exception {
		long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
		try (Client client = newClient(nodes.stream().map(Node::clientUrl).toArray(String[]::new),
				(builder) -> builder.waitForReady(false))) {
			while (true) {
				for (Node node : nodes) {
					if (!node.process.isAlive()) {
						throw new IllegalStateException("etcd member " + node.name + " exited at start: "
								+ node.logTail());
					}
				}
				try {
					// A linearizable read: answered once the cluster has a leader.
					client.getKVClient().get(ByteSequence.from("/", StandardCharsets.UTF_8)).get(1, TimeUnit.SECONDS);
					requireOwnMembers(client, nodes);
					return;
				}
				catch (AnotherCluster ex) {
					throw ex;
				}
				catch (Exception ex) {
					if (System.nanoTime() > deadline) {
						throw new IllegalStateException("etcd did not answer within " + START_TIMEOUT + ": "
								+ nodes.get(0).logTail(), ex);
					}
					Thread.sleep(50);
				}
			}
		}
	}

	/**
	 * The ports were free when chosen, but another etcd (a build's other tests run beside these) may have bound one
	 * first, and would answer in this one's place: the members that answer must be these.
	 */
	private static void requireOwnMembers(Client client, List<Node> nodes) throws Exception {
		List<String> peers = client.getClusterClient().listMember().get(1, TimeUnit.SECONDS).getMembers().stream()
			.flatMap((member) -> member.getPeerURIs().stream())
			.map((uri) -> uri.toString().replaceAll("/$", ""))
			.toList();
		for (Node node : nodes) {
			if (!peers.contains(node.peerUrl())) {
				throw new AnotherCluster("Another etcd answers on " + node.clientUrl() + " (its members: " + peers
						+ "): the port was taken between its choice and this member's start");
			}
		}
	}

	/** Another etcd answered on a port chosen for this one. */
	private static final class AnotherCluster extends IllegalStateException {

		AnotherCluster(String message) {
			super(message);
		}

	}

	private String[] all() {
		return this.nodes.stream().map(Node::clientUrl).toArray(String[]::new);
	}

	/** A client of every member, with jetcd's defaults. */
	public Client newClient() {
		return newClient(UnaryOperator.identity());
	}

	/** A client of every member, its builder adjusted. */
	public Client newClient(UnaryOperator<ClientBuilder> adjust) {
		return newClient(all(), adjust);
	}

	/** A client of the members still running, for reads after one is killed. */
	Client newClientOfRunningMembers() {
		return newClient(this.nodes.stream().filter(Node::isRunning).map(Node::clientUrl).toArray(String[]::new),
				UnaryOperator.identity());
	}

	private static Client newClient(String[] endpoints, UnaryOperator<ClientBuilder> adjust) {
		return adjust.apply(Client.builder().endpoints(endpoints)).build();
	}

	/** A client of these members only: its calls reach the cluster through them. */
	Client newClientOf(List<Node> members) {
		return newClient(members.stream().map(Node::clientUrl).toArray(String[]::new), UnaryOperator.identity());
	}

	/** The client endpoint of each member, in order. */
	public List<String> endpoints() {
		return List.of(all());
	}

	int size() {
		return this.nodes.size();
	}

	/** The admin client: reads and writes behind the engines' backs. */
	public Client admin() {
		return this.admin;
	}

	/** The keys queued for a lock, holder first (by create revision), read without the engines. */
	public List<KeyValue> queue(String name, String key) {
		GetOption byCreation = GetOption.builder()
			.isPrefix(true)
			.withSortField(GetOption.SortTarget.CREATE)
			.withSortOrder(GetOption.SortOrder.ASCEND)
			.build();
		try {
			return this.admin.getKVClient().get(this.keys.queue(name, key), byCreation).get(10, TimeUnit.SECONDS)
				.getKvs();
		}
		catch (Exception ex) {
			throw new IllegalStateException(ex);
		}
	}

	/** Deletes every key of a lock, as an operator would. */
	void deleteQueue(String name, String key) {
		try {
			this.admin.getKVClient()
				.delete(this.keys.queue(name, key), DeleteOption.builder().isPrefix(true).build())
				.get(10, TimeUnit.SECONDS);
		}
		catch (Exception ex) {
			throw new IllegalStateException(ex);
		}
	}

	/** etcd's revision now: it grows by one with every write to the cluster. */
	long revision() {
		try {
			return this.admin.getKVClient().get(ByteSequence.from("/", StandardCharsets.UTF_8)).get(10,
					TimeUnit.SECONDS).getHeader().getRevision();
		}
		catch (Exception ex) {
			throw new IllegalStateException(ex);
		}
	}

	/** The member whose id etcd put in a response header. */
	Node memberWithId(long memberId) throws Exception {
		for (Member member : this.admin.getClusterClient().listMember().get(10, TimeUnit.SECONDS).getMembers()) {
			if (member.getId() == memberId) {
				return this.nodes.stream().filter((node) -> node.name.equals(member.getName())).findFirst()
					.orElseThrow();
			}
		}
		throw new IllegalStateException("No member with id " + Long.toHexString(memberId));
	}

	/** The members, in the order of {@link #endpoints()}. */
	public List<Node> members() {
		return this.nodes;
	}

	@Override
	public void close() {
		this.admin.close();
		this.nodes.forEach(Node::destroy);
	}

	/** One etcd process. */
	public static final class Node {

		final String name;

		final int clientPort;

		final int peerPort;

		private final Path dataDirectory;

		private Process process;

		/** The command that started the process: a restart runs it again, on the same ports and data. */
		private List<String> command;

		private final Thread shutdownHook = new Thread(this::destroy, "etcd-test-member-cleanup");

		private Node(String name, int clientPort, int peerPort) throws IOException {
			this.name = name;
			this.clientPort = clientPort;
			this.peerPort = peerPort;
			Path shm = Path.of("/dev/shm");
			this.dataDirectory = (Files.isDirectory(shm) && Files.isWritable(shm))
					? Files.createTempDirectory(shm, "distlock-etcd-") : Files.createTempDirectory("distlock-etcd-");
		}

		/** Members on free loopback ports: every port is held until all are chosen, so none is chosen twice. */
		static List<Node> allocate(int size) throws IOException {
			List<ServerSocket> sockets = new ArrayList<>();
			try {
				List<Node> nodes = new ArrayList<>();
				for (int i = 0; i < size; i++) {
					ServerSocket client = new ServerSocket(0, 0, InetAddress.getLoopbackAddress());
					ServerSocket peer = new ServerSocket(0, 0, InetAddress.getLoopbackAddress());
					sockets.add(client);
					sockets.add(peer);
					nodes.add(new Node("m" + i, client.getLocalPort(), peer.getLocalPort()));
				}
				return nodes;
			}
			finally {
				for (ServerSocket socket : sockets) {
					socket.close();
				}
			}
		}

		String name() {
			return this.name;
		}

		String clientUrl() {
			return "http://127.0.0.1:" + this.clientPort;
		}

		private String peerUrl() {
			return "http://127.0.0.1:" + this.peerPort;
		}

		void start(Path binary, List<Node> cluster, String token) throws IOException {
			String initialCluster = String.join(",",
					cluster.stream().map((node) -> node.name + "=" + node.peerUrl()).toList());
			List<String> command = List.of(binary.toString(), "--name", this.name, "--data-dir",
					this.dataDirectory.resolve("data").toString(), "--listen-client-urls", clientUrl(),
					"--advertise-client-urls", clientUrl(), "--listen-peer-urls", peerUrl(),
					"--initial-advertise-peer-urls", peerUrl(), "--initial-cluster", initialCluster,
					"--initial-cluster-state", "new", "--initial-cluster-token", token,
					"--heartbeat-interval", String.valueOf(HEARTBEAT.toMillis()), "--election-timeout",
					String.valueOf(ELECTION_TIMEOUT.toMillis()), "--logger", "zap", "--log-outputs",
					"stderr", "--log-level", "warn");
			this.command = command;
			launch();
			Runtime.getRuntime().addShutdownHook(this.shutdownHook);
		}

		private void launch() throws IOException {
			this.process = new ProcessBuilder(this.command).redirectErrorStream(true)
				.redirectOutput(ProcessBuilder.Redirect.appendTo(this.dataDirectory.resolve("etcd.log").toFile()))
				.start();
		}

		/**
		 * SIGKILL, then the same command again on the same ports and data directory, as a crashed server that its
		 * supervisor starts again: etcd reads its keys, leases and revision back from disk. Returns once this member
		 * answers a read again (a member of a cluster needs a leader for that).
		 */
		public void restart() throws Exception {
			kill();
			launch();
			awaitAnswer(List.of(this));
		}

		/** Whether the data directory is in memory (/dev/shm), so that etcd's fsync touches no disk. */
		public boolean inMemory() {
			return this.dataDirectory.startsWith(Path.of("/dev/shm"));
		}

		public long pid() {
			return this.process.pid();
		}

		boolean isRunning() {
			return this.process != null && this.process.isAlive();
		}

		/** SIGKILL, as a crashed machine would: no goodbye to the other members or the clients. */
		public void kill() throws InterruptedException {
			this.process.destroyForcibly();
			if (!this.process.waitFor(10, TimeUnit.SECONDS)) {
				throw new IllegalStateException("etcd member " + this.name + " survived SIGKILL");
			}
		}

		/** SIGSTOP: the process freezes, its sockets stay open, nothing answers. */
		public void freeze() throws Exception {
			signal("-STOP");
		}

		/** SIGCONT after {@link #freeze()}. */
		public void thaw() throws Exception {
			signal("-CONT");
		}

		private void signal(String signal) throws Exception {
			Process kill = new ProcessBuilder("kill", signal, String.valueOf(pid())).inheritIO().start();
			if (kill.waitFor() != 0) {
				throw new IllegalStateException("kill " + signal + " " + pid() + " failed");
			}
		}

		String logTail() {
			try {
				List<String> lines = Files.readAllLines(this.dataDirectory.resolve("etcd.log"));
				return String.join("\n", lines.subList(Math.max(0, lines.size() - 20), lines.size()));
			}
			catch (IOException ex) {
				return "(no log: " + ex.getMessage() + ")";
			}
		}

		/** Kills the process tree and deletes the data directory. */
		void destroy() {
			if (this.process != null) {
				this.process.descendants().forEach(ProcessHandle::destroyForcibly);
				this.process.destroyForcibly();
				try {
					this.process.waitFor(10, TimeUnit.SECONDS);
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
				try {
					Runtime.getRuntime().removeShutdownHook(this.shutdownHook);
				}
				catch (IllegalStateException ex) {
					// Called from the hook itself, as the JVM shuts down.
				}
			}
			try (Stream<Path> files = Files.walk(this.dataDirectory)) {
				files.sorted(Comparator.reverseOrder()).forEach((file) -> file.toFile().delete());
			}
			catch (IOException ex) {
				// A temporary directory: left to the system.
			}
		}

	}

}
