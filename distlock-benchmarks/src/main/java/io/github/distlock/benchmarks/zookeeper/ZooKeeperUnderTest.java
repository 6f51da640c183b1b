package io.github.distlock.benchmarks.zookeeper;

import java.io.IOException;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.Version;

import io.github.distlock.benchmarks.lockserver.LockServer;
import io.github.distlock.benchmarks.lockserver.ServerCounters;
import io.github.distlock.benchmarks.lockserver.SystemLock;

/**
 * The ZooKeeper server the benchmark measures on: one standalone server inside this JVM (Curator's
 * {@link TestingServer}) in a fresh data directory, and a client of its own for every instance of a system.
 */
final class ZooKeeperUnderTest implements LockServer<CuratorFramework> {

	/** distlock's default ({@code distlock.zookeeper.session-timeout}), for every system alike. */
	private static final int SESSION_TIMEOUT_MS = 15_000;

	private static final int CONNECTION_TIMEOUT_MS = 10_000;

	private final TestingServer server;

	private ZooKeeperUnderTest(TestingServer server) {
		this.server = server;
	}

	static ZooKeeperUnderTest start() throws Exception {
		// Every lock and unlock is a transaction in ZooKeeper's log. With an fsync for each, the run would measure
		// this machine's disk, the same for every system, rather than the clients; a real ensemble syncs, so its
		// absolute numbers are lower than these.
		System.setProperty("zookeeper.forceSync", "no");
		// The cost of a lock is read from the server's own counters, which its "srvr" command prints.
		System.setProperty("zookeeper.4lw.commands.whitelist", "srvr");
		// No limit on connections from one host: every instance of every system is a client of its own.
		InstanceSpec spec = new InstanceSpec(null, -1, -1, -1, true, -1, -1, 0);
		return new ZooKeeperUnderTest(new TestingServer(spec, true));
	}

	/** One new instance of a system: a connected client with a session of its own, and the system's lock on it. */
	@Override
	public ZooKeeperInstance open(Function<CuratorFramework, SystemLock> system) throws InterruptedException {
		CuratorFramework client = CuratorFrameworkFactory.builder()
			.connectString(this.server.getConnectString())
			.sessionTimeoutMs(SESSION_TIMEOUT_MS)
			.connectionTimeoutMs(CONNECTION_TIMEOUT_MS)
			.retryPolicy(new ExponentialBackoffRetry(100, 3))
			.build();
		client.start();
		if (!client.blockUntilConnected(CONNECTION_TIMEOUT_MS, TimeUnit.MILLISECONDS)) {
			client.close();
			throw new IllegalStateException("No connection to the ZooKeeper server at "
					+ this.server.getConnectString());
		}
		return new ZooKeeperInstance(client, system);
	}

	/** The server's counters now, by its {@code srvr} command. */
	@Override
	public ServerCounters counters() throws IOException {
		return SrvrCommand.read(this.server.getPort());
	}

	/** The server's release, without its build's commit and date. */
	static String version() {
		return Version.getFullVersion().split("[-, ]")[0];
	}

	@Override
	public void close() throws IOException {
		this.server.close();
	}

}
