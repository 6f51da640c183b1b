package io.github.distlock.test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import io.github.distlock.testsupport.HostBinary;

/**
 * A real Sentinel-managed Redis on loopback: one master, one replica and three sentinels (quorum 2), all
 * {@code redis-server} processes on free ports, with the failovers the tests need: forced by a sentinel, or caused by
 * a master that is killed.
 */
public final class SentinelRedis implements AutoCloseable {

	public static final String MASTER_NAME = "distlock-master";

	/** How long the sentinels wait before they call an unanswering master down. */
	static final int DOWN_AFTER_MILLIS = 1000;

	private final RedisProcess master;

	private final RedisProcess replica;

	private final List<Process> sentinels = new ArrayList<>();

	private final List<Integer> sentinelPorts = new ArrayList<>();

	private final Path dir;

	private SentinelRedis(RedisProcess master, RedisProcess replica, Path dir) {
		this.master = master;
		this.replica = replica;
		this.dir = dir;
	}

	public static SentinelRedis start() {
		// A master starts a full sync at once instead of waiting 5 s for more replicas to batch them: a demoted master
		// then follows the new one within a second or two of the sentinels' order, not after 5 s more.
		List<String> noSyncDelay = List.of("--repl-diskless-sync-delay", "0");
		RedisProcess master = RedisServers.startProcess(noSyncDelay);
		List<String> replicaArgs = new ArrayList<>(noSyncDelay);
		replicaArgs.addAll(List.of("--replicaof", "127.0.0.1", String.valueOf(master.port())));
		RedisProcess replica = RedisServers.startProcess(replicaArgs);
		try {
			SentinelRedis topology = new SentinelRedis(master, replica, Files.createTempDirectory("distlock-sentinel-"));
			topology.awaitReplicaInSync();
			for (int i = 0; i < 3; i++) {
				topology.startSentinel(master.binary());
			}
			topology.awaitSentinelsAgree(master.port());
			return topology;
		}
		catch (IOException ex) {
			master.close();
			replica.close();
			throw new UncheckedIOException(ex);
		}
	}

	private void startSentinel(HostBinary binary) throws IOException {
		int port = RedisProcess.freePort();
		Path config = this.dir.resolve("sentinel-" + port + ".conf");
		// Sentinels rewrite their configuration file, so each has a writable one of its own.
		Files.writeString(config, String.join("\n", "port " + port, "bind 127.0.0.1", "dir " + this.dir,
				"sentinel monitor " + MASTER_NAME + " 127.0.0.1 " + this.master.port() + " 2",
				"sentinel down-after-milliseconds " + MASTER_NAME + " " + DOWN_AFTER_MILLIS,
				"sentinel failover-timeout " + MASTER_NAME + " 10000",
				"sentinel parallel-syncs " + MASTER_NAME + " 1", ""));
		Process process = binary.processBuilder(List.of(config.toString(), "--sentinel"))
			.redirectErrorStream(true)
			.redirectOutput(this.dir.resolve("sentinel-" + port + ".log").toFile())
			.start();
		this.sentinels.add(process);
		this.sentinelPorts.add(port);
	}

	private void awaitReplicaInSync() {
		await("the replica to sync with the master", () -> {
			try (RespClient client = this.replica.client()) {
				return String.valueOf(client.call("INFO", "replication")).contains("master_link_status:up");
			}
		});
	}

	private void awaitSentinelsAgree(int masterPort) {
		await("the three sentinels to know the master, the replica and each other", () -> {
			for (int port : this.sentinelPorts) {
				try (RespClient client = new RespClient("127.0.0.1", port)) {
					List<?> address = (List<?>) client.call("SENTINEL", "GET-MASTER-ADDR-BY-NAME", MASTER_NAME);
					if (address == null || !String.valueOf(masterPort).equals(address.get(1))) {
						return false;
					}
					List<?> others = (List<?>) client.call("SENTINEL", "SENTINELS", MASTER_NAME);
					List<?> replicas = (List<?>) client.call("SENTINEL", "REPLICAS", MASTER_NAME);
					if (others.size() < 2 || replicas.isEmpty()) {
						return false;
					}
				}
				catch (RuntimeException ex) {
					return false;
				}
			}
			return true;
		});
	}

	/** The sentinels' addresses, as {@code redis://127.0.0.1:<port>}. */
	public List<String> sentinelAddresses() {
		return this.sentinelPorts.stream().map((port) -> "redis://127.0.0.1:" + port).toList();
	}

	/** The sentinels' addresses, as Spring Boot's {@code spring.data.redis.sentinel.nodes} takes them. */
	public String sentinelNodes() {
		return String.join(",", this.sentinelPorts.stream().map((port) -> "127.0.0.1:" + port).toList());
	}

	/** The port of the server the sentinels call master now. */
	public int masterPort() {
		try (RespClient client = new RespClient("127.0.0.1", this.sentinelPorts.get(0))) {
			List<?> address = (List<?>) client.call("SENTINEL", "GET-MASTER-ADDR-BY-NAME", MASTER_NAME);
			return Integer.parseInt(String.valueOf(address.get(1)));
		}
	}

	/** A raw connection to the server that is master now. */
	public RespClient masterClient() {
		return new RespClient("127.0.0.1", masterPort());
	}

	/** The process that is master now, as the sentinels say. */
	public RedisProcess currentMaster() {
		int port = masterPort();
		return (this.master.port() == port) ? this.master : this.replica;
	}

	/** The process that is not master now: the replica, or a demoted master once it follows the new one. */
	public RedisProcess currentReplica() {
		return (currentMaster() == this.master) ? this.replica : this.master;
	}

	/** Waits until {@code node} replicates the master and is in sync with it: a demoted master, once reconfigured. */
	public void awaitReplicating(RedisProcess node) {
		await("the server on port " + node.port() + " to replicate the master", () -> {
			try (RespClient client = node.client()) {
				String replication = String.valueOf(client.call("INFO", "replication"));
				return replication.contains("role:slave") && replication.contains("master_link_status:up");
			}
		});
	}

	/** The original master process. */
	public RedisProcess originalMaster() {
		return this.master;
	}

	/** The original replica process. */
	public RedisProcess originalReplica() {
		return this.replica;
	}

	/** Has a sentinel promote the replica now, and waits until every sentinel names the new master. */
	public void failover() {
		int before = masterPort();
		try (RespClient client = new RespClient("127.0.0.1", this.sentinelPorts.get(0))) {
			client.call("SENTINEL", "FAILOVER", MASTER_NAME);
		}
		awaitNewMaster(before);
	}

	/** Waits until every sentinel names a master other than the one on {@code oldMasterPort}, and it accepts writes. */
	public void awaitNewMaster(int oldMasterPort) {
		await("a new master after the failover", () -> {
			for (int port : this.sentinelPorts) {
				try (RespClient client = new RespClient("127.0.0.1", port)) {
					List<?> address = (List<?>) client.call("SENTINEL", "GET-MASTER-ADDR-BY-NAME", MASTER_NAME);
					if (String.valueOf(oldMasterPort).equals(address.get(1))) {
						return false;
					}
				}
			}
			try (RespClient client = masterClient()) {
				return String.valueOf(client.call("INFO", "replication")).contains("role:master");
			}
		});
	}

	private static void await(String what, java.util.function.BooleanSupplier condition) {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
		while (System.nanoTime() < deadline) {
			try {
				if (condition.getAsBoolean()) {
					return;
				}
			}
			catch (RuntimeException ex) {
				// not yet: a server still starting or switching roles
			}
			try {
				// Polling: sentinels and replicas announce their state to nobody but those who ask.
				Thread.sleep(50);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException(ex);
			}
		}
		throw new IllegalStateException("Timed out waiting for " + what);
	}

	@Override
	public void close() {
		for (Process sentinel : this.sentinels) {
			sentinel.destroyForcibly();
		}
		this.replica.close();
		this.master.close();
		try (Stream<Path> files = Files.walk(this.dir)) {
			files.sorted(Comparator.reverseOrder()).forEach((file) -> file.toFile().delete());
		}
		catch (IOException ex) {
			// a temporary directory left behind is harmless
		}
	}

}
