package io.github.distlock.zookeeper;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import io.github.distlock.LockLostListener;
import io.github.distlock.engine.LockEngine;
import io.github.distlock.conformance.AbstractLockEngineConformanceTests;
import io.github.distlock.conformance.HandOverAfterLossConformance;

/**
 * The engine conformance suite on a ZooKeeper server in the test JVM, each engine with a client (and so a session)
 * of its own.
 */
class ZooKeeperLockEngineConformanceTests extends AbstractLockEngineConformanceTests
		implements HandOverAfterLossConformance {

	private static TestZooKeeper zooKeeper;

	/**
	 * Closes clients: a ZooKeeper client takes about 100 ms to close after its goodbye is sent, and the tests that
	 * start an engine per attempt leave hundreds of them at their end.
	 */
	private static ExecutorService closer;

	/** Each engine's client, closed with it, since the engine does not own it. */
	private final Map<LockEngine, CuratorFramework> clients = new ConcurrentHashMap<>();

	@BeforeAll
	static void startServer() throws Exception {
		zooKeeper = new TestZooKeeper();
		closer = Executors.newCachedThreadPool();
	}

	@AfterAll
	static void stopServer() throws Exception {
		closer.shutdown();
		closer.awaitTermination(1, TimeUnit.MINUTES);
		zooKeeper.close();
	}

	@Override
	protected LockEngine newEngine(LockLostListener listener) {
		try {
			CuratorFramework client = zooKeeper.newClient();
			ZooKeeperLockEngine engine = new ZooKeeperLockEngine(client, ZooKeeperLockEngine.DEFAULT_ROOT,
					listener);
			this.clients.put(engine, client);
			return engine;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	/**
	 * Closes the client without releasing: the client says goodbye to the server, which ends the session and with it
	 * the ephemeral nodes at once. A process killed outright says nothing; its session (and locks) end with the
	 * session timeout, which {@link ZooKeeperLockEngineTests} covers. The goodbye goes out at once; the client's
	 * own shutdown after it is left to a thread of its own, so that a close never waits behind another.
	 */
	@Override
	protected void crash(LockEngine engine) {
		((ZooKeeperLockEngine) engine).close();
		CuratorFramework client = this.clients.remove(engine);
		if (client != null) {
			closer.execute(client::close);
		}
	}

	@Override
	protected boolean lockExists(String name, String key) {
		return !zooKeeper.nodes(name, key).isEmpty();
	}

	@Override
	protected void deleteLock(String name, String key) {
		zooKeeper.deleteNodes(name, key);
	}

	/** The store knows a waiter by its node queued behind the holder's. */
	@Override
	protected void awaitWaiterQueued(String key) throws Exception {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
		while (System.nanoTime() < deadline) {
			List<String> nodes = zooKeeper.nodes("conformance", key);
			if (nodes.size() > 1) {
				return;
			}
			Thread.sleep(5);
		}
		throw new AssertionError("No waiter for " + key);
	}

}
