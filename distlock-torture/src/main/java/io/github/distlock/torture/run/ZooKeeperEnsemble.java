package io.github.distlock.torture.run;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.IntStream;

/**
 * A ZooKeeper ensemble of the run's own: servers ({@link ZooKeeperProcess#member}) in JVMs of their own on loopback,
 * each with a client port, a quorum port and an election port, all free ports, its configuration
 * ({@code zookeeper-N.cfg}, the same {@code server.N=127.0.0.1:quorum:election} lines in each), its data directory
 * ({@code zookeeper-data-N}, holding its {@code myid}) and its log ({@code zookeeper-N.log}) in the run directory.
 * <p>
 * The leader is the member whose {@code srvr} says {@code Mode: leader}. Killed, it leaves the followers without a
 * leader: they drop their clients' connections and elect another among themselves (a majority of three is two), and
 * the killed one, started again on its ports and its data, joins the new leader as a follower and is brought in sync
 * (its log truncated of anything the quorum never committed).
 * <p>
 * The tick and the sessions are those of the standalone server; {@code initLimit} and {@code syncLimit} (in ticks)
 * give a follower 2 s to sync with a new leader and 1 s to answer it, ZooKeeper's defaults at a tenth of the tick.
 */
final class ZooKeeperEnsemble implements LeaderEnsemble, AutoCloseable {

	/**
	 * How long the start, an election and a member's return may take at most: far more than they take (a second or
	 * two), so that only a broken ensemble fails the run.
	 */
	private static final Duration DEADLINE = Duration.ofSeconds(60);

	private final List<ZooKeeperProcess> servers;

	private ZooKeeperEnsemble(List<ZooKeeperProcess> servers) {
		this.servers = servers;
	}

	/** Starts so many servers under the directory, side by side, and waits until each leads or follows. */
	static ZooKeeperEnsemble start(Path directory, Duration tick, int size) {
		try {
			List<int[]> ports = freePorts(size);
			List<String> serverLines = new ArrayList<>();
			for (int id = 1; id <= size; id++) {
				int[] of = ports.get(id - 1);
				serverLines.add("server." + id + "=127.0.0.1:" + of[1] + ":" + of[2]);
			}
			List<ZooKeeperProcess> servers = new ArrayList<>();
			for (int id = 1; id <= size; id++) {
				Path data = Files.createDirectories(directory.resolve("zookeeper-data-" + id));
				Files.writeString(data.resolve("myid"), id + "\n", StandardCharsets.US_ASCII);
				int clientPort = ports.get(id - 1)[0];
				List<String> lines = new ArrayList<>(List.of("tickTime=" + tick.toMillis(), "initLimit=10",
						"syncLimit=5", "dataDir=" + data, "clientPortAddress=127.0.0.1", "clientPort=" + clientPort,
						// Every worker connects from the same address: no limit per address (the default is 60).
						"maxClientCnxns=0"));
				lines.addAll(serverLines);
				lines.add("");
				Path config = directory.resolve("zookeeper-" + id + ".cfg");
				Files.writeString(config, String.join("\n", lines), StandardCharsets.UTF_8);
				servers.add(ZooKeeperProcess.member(clientPort, config, directory.resolve("zookeeper-" + id + ".log")));
			}
			ZooKeeperEnsemble ensemble = new ZooKeeperEnsemble(List.copyOf(servers));
			try {
				for (ZooKeeperProcess server : servers) {
					server.spawn();
				}
				servers.forEach(ZooKeeperProcess::awaitServing);
			}
			catch (IOException | RuntimeException ex) {
				ensemble.close();
				throw ex;
			}
			return ensemble;
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not start a ZooKeeper ensemble", ex);
		}
	}

	/** Three free loopback ports per server (client, quorum, election), each held until all are chosen. */
	private static List<int[]> freePorts(int size) throws IOException {
		List<ServerSocket> sockets = new ArrayList<>();
		try {
			List<int[]> ports = new ArrayList<>();
			for (int i = 0; i < size; i++) {
				int[] of = new int[3];
				for (int j = 0; j < 3; j++) {
					ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
					sockets.add(socket);
					of[j] = socket.getLocalPort();
				}
				ports.add(of);
			}
			return ports;
		}
		finally {
			for (ServerSocket socket : sockets) {
				socket.close();
			}
		}
	}

	/** Every server's client address: a client moves to another when it loses the one it talks to. */
	String connectString() {
		return String.join(",", this.servers.stream().map(ZooKeeperProcess::connectString).toList());
	}

	@Override
	public LeaderKill killLeader() throws InterruptedException {
		List<Integer> all = IntStream.range(0, this.servers.size()).boxed().toList();
		int leader = Polling.until("ZooKeeper leader", DEADLINE, () -> leaderAmong(all));
		ZooKeeperProcess victim = this.servers.get(leader);
		long pid = victim.pid();
		long killedAt = System.nanoTime();
		victim.kill();
		List<Integer> survivors = all.stream().filter((server) -> server != leader).toList();
		int elected = Polling.until("new ZooKeeper leader among " + names(survivors), DEADLINE,
				() -> leaderAmong(survivors));
		long electedAt = System.nanoTime();
		// Same ports, same data directory and myid; returns once it follows the new leader, in sync with it.
		victim.restart();
		Polling.until("ZooKeeper ensemble with one leader and every member following it", DEADLINE,
				() -> leaderAmong(all).filter((index) -> everyMemberServes(all)));
		long rejoinedAt = System.nanoTime();
		return new LeaderKill(pid, name(leader), name(elected), electedAt - killedAt, rejoinedAt - killedAt);
	}

	@Override
	public String faultTarget() {
		return "zookeeper";
	}

	/** The one member among these that says it leads; none if none does (or, in a transition, more than one). */
	private Optional<Integer> leaderAmong(List<Integer> members) {
		List<Integer> leaders = members.stream().filter((member) -> "leader".equals(this.servers.get(member).mode()))
			.toList();
		return (leaders.size() == 1) ? Optional.of(leaders.get(0)) : Optional.empty();
	}

	private boolean everyMemberServes(List<Integer> members) {
		return members.stream().map((member) -> this.servers.get(member).mode())
			.allMatch((mode) -> mode.equals("leader") || mode.equals("follower"));
	}

	/** The name of a member, as its files are named: {@code zk1} for {@code zookeeper-1.cfg}. */
	private static String name(int member) {
		return "zk" + (member + 1);
	}

	private static List<String> names(List<Integer> members) {
		return members.stream().map(ZooKeeperEnsemble::name).toList();
	}

	/** Each member's process, in the order of {@link #connectString()}. */
	List<Long> pids() {
		return this.servers.stream().map(ZooKeeperProcess::pid).toList();
	}

	@Override
	public void close() {
		for (ZooKeeperProcess server : this.servers) {
			try {
				server.close();
			}
			catch (RuntimeException ex) {
				// keep stopping the others
			}
		}
	}

}
