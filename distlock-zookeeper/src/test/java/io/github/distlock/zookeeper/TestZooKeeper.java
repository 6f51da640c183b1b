package io.github.distlock.zookeeper;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryNTimes;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.ZooDefs;

/**
 * A ZooKeeper server inside the test JVM, with clients as separate application instances would have them, and a
 * client of its own that reads and deletes lock nodes behind the engines' backs.
 */
final class TestZooKeeper implements AutoCloseable {

	/**
	 * Short, so that a session that ends without a goodbye frees its locks soon; the server's tick of 100 ms allows
	 * 200 ms and up.
	 */
	static final int SESSION_TIMEOUT_MS = 2000;

	/** The longest session the server grants, for tests whose sessions must outlast a slow reconnection. */
	static final int MAX_SESSION_TIMEOUT_MS = 10_000;

	private static final int TICK_MS = 100;

	private final TestingServer server;

	private final CuratorFramework admin;

	private final LockPaths paths = new LockPaths(ZooKeeperLockEngine.DEFAULT_ROOT);

	TestZooKeeper() throws Exception {
		// Every lock and release is a transaction; an fsync for each would make the suite crawl on a slow disk.
		System.setProperty("zookeeper.forceSync", "no");
		// Unlimited connections from one host: every engine is a client of its own.
		ServerPorts.keepTheJvmOnServerFailure();
		InstanceSpec spec = new InstanceSpec(null, ServerPorts.free(), ServerPorts.free(), ServerPorts.free(), true, -1,
				TICK_MS, 0, Map.of("maxSessionTimeout", Integer.toString(MAX_SESSION_TIMEOUT_MS)));
		this.server = new TestingServer(spec, true);
		this.admin = newClient();
	}

	/** A started, connected client with the short session timeout. */
	CuratorFramework newClient() throws InterruptedException {
		return newClient(SESSION_TIMEOUT_MS);
	}

	/** A started, connected client asking for the given session timeout (the server grants up to its maximum). */
	CuratorFramework newClient(int sessionTimeoutMs) throws InterruptedException {
		CuratorFramework client = CuratorFrameworkFactory.builder()
			.connectString(this.server.getConnectString())
			.sessionTimeoutMs(sessionTimeoutMs)
			.connectionTimeoutMs(1000)
			.retryPolicy(new RetryNTimes(10, 100))
			.build();
		client.start();
		if (!client.blockUntilConnected(10, java.util.concurrent.TimeUnit.SECONDS)) {
			client.close();
			throw new IllegalStateException("No connection to the test ZooKeeper server");
		}
		return client;
	}

	TestingServer server() {
		return this.server;
	}

	/** The nodes queued for a lock, holder first in sequence order, read without the engines. */
	List<String> nodes(String name, String key) {
		try {
			List<String> children = this.admin.getChildren().forPath(this.paths.lockDirectory(name, key));
			children.sort(java.util.Comparator.comparing(LockQueue::sequence));
			return children;
		}
		catch (KeeperException.NoNodeException ex) {
			return List.of();
		}
		catch (Exception ex) {
			throw new IllegalStateException(ex);
		}
	}

	/** Creates a lock's directory ahead of its first node, so that the node's create is the first request naming it. */
	void createDirectory(String name, String key) throws Exception {
		this.admin.create().creatingParentsIfNeeded().forPath(this.paths.lockDirectory(name, key));
	}

	/** The directory of a lock's nodes. */
	String directory(String name, String key) {
		return this.paths.lockDirectory(name, key);
	}

	/** The creation zxid of one of a lock's nodes, read without the engines. */
	long creationZxid(String name, String key, String node) throws Exception {
		return this.admin.checkExists().forPath(this.paths.lockDirectory(name, key) + "/" + node).getCzxid();
	}

	/** Deletes every node of a lock, as an operator would. */
	void deleteNodes(String name, String key) {
		String directory = this.paths.lockDirectory(name, key);
		for (String node : nodes(name, key)) {
			try {
				this.admin.delete().quietly().forPath(directory + "/" + node);
			}
			catch (Exception ex) {
				throw new IllegalStateException(ex);
			}
		}
	}

	/**
	 * Ends a client's session on the server without the client taking part, as the server does when it stops hearing
	 * from a frozen process: another connection takes the session over with its id and password and closes it. The
	 * server deletes the session's ephemeral nodes before this returns.
	 */
	void endSessionBehindItsBack(ZooKeeper victim) throws Exception {
		CountDownLatch connected = new CountDownLatch(1);
		ZooKeeper impostor = new ZooKeeper(this.server.getConnectString(), SESSION_TIMEOUT_MS, (event) -> {
			if (event.getState() == Watcher.Event.KeeperState.SyncConnected) {
				connected.countDown();
			}
		}, victim.getSessionId(), victim.getSessionPasswd());
		try {
			if (!connected.await(10, TimeUnit.SECONDS)) {
				throw new IllegalStateException("Could not take over session 0x" + Long.toHexString(victim.getSessionId()));
			}
		}
		finally {
			impostor.close();
		}
	}

	/** Creates a node that anyone may read and nobody may write under, as a locked-down root would be. */
	void createReadOnly(String path) throws Exception {
		this.admin.create().withACL(ZooDefs.Ids.READ_ACL_UNSAFE).forPath(path);
	}

	/**
	 * Lets anyone do anything under an empty node. Changing its ACL would take a permission the node does not give,
	 * so it is made again (the parent's ACL allows that).
	 */
	void openUp(String path) throws Exception {
		this.admin.delete().forPath(path);
		this.admin.create().withACL(ZooDefs.Ids.OPEN_ACL_UNSAFE).forPath(path);
	}

	@Override
	public void close() throws Exception {
		this.admin.close();
		this.server.close();
	}

}
