package io.github.distlock.test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * A real Redis Cluster on loopback: masters that share the 16384 hash slots in even ranges, each with as many
 * replicas as asked, all {@code redis-server} processes on free ports, joined with {@code CLUSTER MEET} and
 * {@code CLUSTER REPLICATE}. With what the failure tests need: moving a slot to another master under load (the steps
 * {@code redis-cli --cluster reshard} takes, one by one) and promoting a replica.
 * <p>
 * A cluster that does not come up fails the test with what it was waiting for and what the nodes said: never a skip.
 */
public final class RedisCluster implements AutoCloseable {

	private static final int SLOTS = 16384;

	/** How long a node may be silent before the others call it failing: short, so a failover takes seconds. */
	private static final int NODE_TIMEOUT_MILLIS = 1000;

	private final List<RedisProcess> masters = new ArrayList<>();

	/** Each replica, with the master it was started for (after a failover, they trade roles). */
	private final Map<RedisProcess, RedisProcess> replicas = new LinkedHashMap<>();

	private final Map<RedisProcess, String> nodeIds = new LinkedHashMap<>();

	/** The certificates of a cluster that serves clients over TLS, else null. */
	private final TestCertificates certificates;

	/** Each node's TLS port, in a cluster that serves clients over TLS. */
	private final Map<RedisProcess, Integer> tlsPorts = new LinkedHashMap<>();

	private RedisCluster(TestCertificates certificates) {
		this.certificates = certificates;
	}

	/**
	 * Starts the cluster and returns once every node agrees on every slot's owner and every replica is in sync.
	 * @throws IllegalStateException saying what did not happen, when the cluster cannot be set up
	 */
	public static RedisCluster start(int masterCount, int replicasPerMaster) {
		return start(masterCount, replicasPerMaster, null);
	}

	/**
	 * As {@link #start(int, int)}, with every node serving clients over TLS as well (a certificate for
	 * {@code IP:127.0.0.1} signed by a throw-away CA, {@link #caCertificate()}), and talking TLS on the cluster bus and
	 * for replication ({@code tls-cluster}, {@code tls-replication}), so that the nodes announce their TLS ports to
	 * TLS clients. The fixture itself keeps to the plain ports.
	 */
	public static RedisCluster startTls(int masterCount, int replicasPerMaster) {
		return start(masterCount, replicasPerMaster, TestCertificates.make("IP:127.0.0.1", false));
	}

	private static RedisCluster start(int masterCount, int replicasPerMaster, TestCertificates certificates) {
		RedisCluster cluster = new RedisCluster(certificates);
		try {
			cluster.create(masterCount, replicasPerMaster);
			return cluster;
		}
		catch (RuntimeException ex) {
			cluster.close();
			throw new IllegalStateException("The Redis Cluster fixture (" + masterCount + " masters, "
					+ replicasPerMaster + " replica(s) each, " + ((certificates != null) ? "TLS, " : "")
					+ "redis-server processes on loopback) could not start: "
					+ ex.getMessage(), ex);
		}
	}

	private void create(int masterCount, int replicasPerMaster) {
		// Without full coverage, a master that stalls or dies leaves the other masters serving their slots, so the
		// tests can tell the locks it takes with it from those it must not.
		for (int i = 0; i < masterCount; i++) {
			RedisProcess master = startNode();
			this.masters.add(master);
			for (int r = 0; r < replicasPerMaster; r++) {
				this.replicas.put(startNode(), master);
			}
		}
		int epoch = 0;
		for (RedisProcess node : allNodes()) {
			try (RespClient client = node.client()) {
				this.nodeIds.put(node, (String) client.call("CLUSTER", "MYID"));
				// Distinct epochs up front, so no node has to resolve a collision before the cluster settles.
				client.call("CLUSTER", "SET-CONFIG-EPOCH", ++epoch);
			}
		}
		for (int i = 0; i < masterCount; i++) {
			try (RespClient client = this.masters.get(i).client()) {
				client.call("CLUSTER", "ADDSLOTSRANGE", SLOTS * i / masterCount, SLOTS * (i + 1) / masterCount - 1);
			}
		}
		RedisProcess first = this.masters.get(0);
		try (RespClient client = first.client()) {
			for (RedisProcess node : allNodes()) {
				if (node != first) {
					// A node's cluster bus listens 10000 above the port it announces: its TLS port with tls-cluster.
					client.call("CLUSTER", "MEET", node.host(), this.tlsPorts.getOrDefault(node, node.port()));
				}
			}
		}
		await("every node to know every other", () -> allNodes().stream().allMatch(this::knowsAll));
		for (Map.Entry<RedisProcess, RedisProcess> replica : this.replicas.entrySet()) {
			try (RespClient client = replica.getKey().client()) {
				client.call("CLUSTER", "REPLICATE", this.nodeIds.get(replica.getValue()));
			}
		}
		awaitStable();
	}

	private RedisProcess startNode() {
		List<String> args = new ArrayList<>(List.of("--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
				"--cluster-node-timeout", String.valueOf(NODE_TIMEOUT_MILLIS), "--cluster-require-full-coverage", "no"));
		if (this.certificates == null) {
			return RedisServers.startProcess(args);
		}
		int tlsPort;
		try {
			tlsPort = RedisProcess.freePort();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		args.addAll(this.certificates.serverArgs(tlsPort));
		args.addAll(List.of("--tls-cluster", "yes", "--tls-replication", "yes"));
		RedisProcess node = RedisServers.startProcess(args);
		this.tlsPorts.put(node, tlsPort);
		return node;
	}

	private boolean knowsAll(RedisProcess node) {
		try (RespClient client = node.client()) {
			String nodes = (String) client.call("CLUSTER", "NODES");
			return nodes.lines().count() == this.nodeIds.size() && !nodes.contains("handshake")
					&& !nodes.contains("noaddr");
		}
	}

	/**
	 * Waits until every node reports {@code cluster_state:ok} and the same owner for every slot, and every replica
	 * is in sync with its master.
	 */
	public void awaitStable() {
		await("the cluster to be ok on every node, agreeing on the slots, with every replica in sync", () -> {
			String expected = null;
			for (RedisProcess node : liveNodes()) {
				try (RespClient client = node.client()) {
					if (!String.valueOf(client.call("CLUSTER", "INFO")).contains("cluster_state:ok")) {
						return false;
					}
					String owners = slotOwners(client);
					if (expected != null && !expected.equals(owners)) {
						return false;
					}
					expected = owners;
					String replication = String.valueOf(client.call("INFO", "replication"));
					if (replication.contains("role:slave") && !replication.contains("master_link_status:up")) {
						return false;
					}
				}
			}
			return true;
		});
	}

	/** The masters' ports per slot range, as a node sees them, to compare the nodes' views. */
	private static String slotOwners(RespClient client) {
		List<String> ranges = new ArrayList<>();
		for (Object range : (List<?>) client.call("CLUSTER", "SLOTS")) {
			List<?> parts = (List<?>) range;
			ranges.add(parts.get(0) + "-" + parts.get(1) + "@" + ((List<?>) parts.get(2)).get(1));
		}
		ranges.sort(null);
		return String.join(",", ranges);
	}

	/** The masters' addresses, as {@code redis://127.0.0.1:<port>}: the seeds a client is given. */
	public List<String> nodeAddresses() {
		return this.masters.stream().map(RedisProcess::url).toList();
	}

	/** The masters' TLS addresses, as {@code rediss://127.0.0.1:<TLS port>}, of a cluster started with TLS. */
	public List<String> tlsNodeAddresses() {
		return this.masters.stream().map((node) -> "rediss://" + node.host() + ":" + tlsPort(node)).toList();
	}

	/** A node's TLS port, in a cluster started with TLS. */
	public int tlsPort(RedisProcess node) {
		Integer port = this.tlsPorts.get(node);
		if (port == null) {
			throw new IllegalStateException("No TLS port: the cluster was started without TLS, or the node is not its");
		}
		return port;
	}

	/** The CA certificate that signed the nodes' certificates, in PEM, of a cluster started with TLS. */
	public Path caCertificate() {
		if (this.certificates == null) {
			throw new IllegalStateException("The cluster was started without TLS");
		}
		return this.certificates.caCertificate();
	}

	/** The masters' addresses, as Spring Boot's {@code spring.data.redis.cluster.nodes} takes them. */
	public String springNodes() {
		return String.join(",", this.masters.stream().map((node) -> node.host() + ":" + node.port()).toList());
	}

	/** The hash slot of a key, as the cluster computes it. */
	public int slot(String key) {
		try (RespClient client = anyLiveNode().client()) {
			return Math.toIntExact((Long) client.call("CLUSTER", "KEYSLOT", key));
		}
	}

	/** The process that is master of a slot now, as the cluster says. */
	public RedisProcess masterOfSlot(int slot) {
		try (RespClient client = anyLiveNode().client()) {
			for (Object range : (List<?>) client.call("CLUSTER", "SLOTS")) {
				List<?> parts = (List<?>) range;
				if ((Long) parts.get(0) <= slot && slot <= (Long) parts.get(1)) {
					return nodeOnPort(Math.toIntExact((Long) ((List<?>) parts.get(2)).get(1)));
				}
			}
		}
		throw new IllegalStateException("No master serves slot " + slot);
	}

	/** The process that is master of a key's slot now. */
	public RedisProcess masterOf(String key) {
		return masterOfSlot(slot(key));
	}

	/** A raw connection to the master of a key's slot, for reading and writing that key. */
	public RespClient clientFor(String key) {
		return masterOf(key).client();
	}

	/** A replica that was started for this master, or (after a failover) the old master now replicating it. */
	public RedisProcess replicaOf(RedisProcess master) {
		String masterId = this.nodeIds.get(master);
		for (RedisProcess node : liveNodes()) {
			try (RespClient client = node.client()) {
				String myself = ((String) client.call("CLUSTER", "NODES")).lines()
					.filter((line) -> line.contains("myself"))
					.findFirst()
					.orElse("");
				String[] fields = myself.split(" ");
				if (fields.length > 3 && fields[2].contains("slave") && fields[3].equals(masterId)) {
					return node;
				}
			}
		}
		throw new IllegalStateException("No replica of the master on port " + master.port());
	}

	/** Every key of the pattern on every master. */
	public List<String> keys(String pattern) {
		List<String> keys = new ArrayList<>();
		for (RedisProcess master : currentMasters()) {
			try (RespClient client = master.client()) {
				keys.addAll(client.keys(pattern));
			}
		}
		return keys;
	}

	/** The masters now, as the cluster says (a failover changes them). */
	public List<RedisProcess> currentMasters() {
		List<RedisProcess> current = new ArrayList<>();
		for (RedisProcess node : liveNodes()) {
			try (RespClient client = node.client()) {
				if (String.valueOf(client.call("INFO", "replication")).contains("role:master")) {
					current.add(node);
				}
			}
		}
		return current;
	}

	/** The id the cluster knows a node by. */
	public String nodeId(RedisProcess node) {
		return this.nodeIds.get(node);
	}

	/**
	 * Starts moving a slot to another master as a resharding tool does: the target imports it, the source migrates
	 * it. Keys stay on the source until {@link SlotMigration#moveKeys()}.
	 */
	public SlotMigration migrate(int slot, RedisProcess target) {
		RedisProcess source = masterOfSlot(slot);
		if (source == target) {
			throw new IllegalArgumentException("Slot " + slot + " is on port " + target.port() + " already");
		}
		try (RespClient client = target.client()) {
			client.call("CLUSTER", "SETSLOT", slot, "IMPORTING", this.nodeIds.get(source));
		}
		try (RespClient client = source.client()) {
			client.call("CLUSTER", "SETSLOT", slot, "MIGRATING", this.nodeIds.get(target));
		}
		return new SlotMigration(slot, source, target);
	}

	/**
	 * Has a replica take over from its master in a coordinated failover ({@code CLUSTER FAILOVER}, no data lost), and
	 * waits until the cluster is stable again with the replica as master.
	 */
	public void failover(RedisProcess replica) {
		try (RespClient client = replica.client()) {
			client.call("CLUSTER", "FAILOVER");
		}
		awaitPromoted(replica);
	}

	/** Waits until the replica is master (after a failover, coordinated or not) and the cluster is stable again. */
	public void awaitPromoted(RedisProcess replica) {
		await("the replica on port " + replica.port() + " to become master", () -> {
			try (RespClient client = replica.client()) {
				return String.valueOf(client.call("INFO", "replication")).contains("role:master");
			}
		});
		awaitStable();
	}

	/** Waits until a replica has a key its master wrote: replication is asynchronous. */
	public void awaitReplicated(RedisProcess replica, String key) {
		await("the replica on port " + replica.port() + " to have " + key, () -> {
			try (RespClient client = replica.client()) {
				// A replica answers reads on its master's slots only to a connection that asks for it.
				client.call("READONLY");
				return client.get(key) != null;
			}
		});
	}

	/** Every node the fixture started, masters and replicas, whatever their roles now. */
	public List<RedisProcess> nodes() {
		return allNodes();
	}

	private List<RedisProcess> allNodes() {
		List<RedisProcess> all = new ArrayList<>(this.masters);
		all.addAll(this.replicas.keySet());
		return all;
	}

	private List<RedisProcess> liveNodes() {
		return allNodes().stream().filter(RedisProcess::isAlive).toList();
	}

	private RedisProcess anyLiveNode() {
		return liveNodes().get(0);
	}

	private RedisProcess nodeOnPort(int port) {
		return allNodes().stream()
			.filter((node) -> node.port() == port)
			.findFirst()
			.orElseThrow(() -> new IllegalStateException("No node of the fixture on port " + port));
	}

	static void await(String what, BooleanSupplier condition) {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
		RuntimeException last = null;
		while (System.nanoTime() < deadline) {
			try {
				if (condition.getAsBoolean()) {
					return;
				}
			}
			catch (RuntimeException ex) {
				// not yet: a node still starting, or switching roles
				last = ex;
			}
			try {
				// Polling: cluster nodes tell their state only to those who ask.
				Thread.sleep(50);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException(ex);
			}
		}
		throw new IllegalStateException("Timed out after 30 s waiting for " + what
				+ ((last != null) ? " (last error: " + last.getMessage() + ")" : ""), last);
	}

	@Override
	public void close() {
		for (RedisProcess node : allNodes()) {
			node.close();
		}
		if (this.certificates != null) {
			this.certificates.close();
		}
	}

	/** A slot on its way from one master to another, moved step by step so tests can act between the steps. */
	public final class SlotMigration {

		private final int slot;

		private final RedisProcess source;

		private final RedisProcess target;

		private SlotMigration(int slot, RedisProcess source, RedisProcess target) {
			this.slot = slot;
			this.source = source;
			this.target = target;
		}

		/** Moves every key of the slot to the target (MIGRATE, which keeps each key's TTL); returns how many. */
		public int moveKeys() {
			int moved = 0;
			try (RespClient client = this.source.client()) {
				while (true) {
					List<?> keys = (List<?>) client.call("CLUSTER", "GETKEYSINSLOT", this.slot, 100);
					if (keys.isEmpty()) {
						return moved;
					}
					List<Object> command = new ArrayList<>(List.of("MIGRATE", this.target.host(), this.target.port(),
							"", 0, 5000, "KEYS"));
					command.addAll(keys);
					client.call(command.toArray());
					moved += keys.size();
				}
			}
		}

		/** Gives the slot to the target on every master, which ends the migration. */
		public void finish() {
			String targetId = RedisCluster.this.nodeIds.get(this.target);
			// The target first, then the source, then the rest: the order redis-cli follows.
			List<RedisProcess> order = new ArrayList<>(List.of(this.target, this.source));
			currentMasters().stream().filter((node) -> !order.contains(node)).forEach(order::add);
			for (RedisProcess node : order) {
				try (RespClient client = node.client()) {
					client.call("CLUSTER", "SETSLOT", this.slot, "NODE", targetId);
				}
			}
			awaitStable();
		}

	}

}
