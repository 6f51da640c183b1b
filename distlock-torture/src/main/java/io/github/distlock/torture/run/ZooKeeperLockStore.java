package io.github.distlock.torture.run;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryNTimes;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;
import org.springframework.boot.logging.LogLevel;
import org.springframework.boot.logging.LoggingSystem;

import io.github.distlock.zookeeper.ZooKeeperLockEngine;

/**
 * The ZooKeeper engine's lock store for a run: a ZooKeeper server process of the run's own, or an ensemble of three,
 * the properties that point a worker at it, the faults the run inflicts on it, and the lock nodes it still holds,
 * read with a Curator client of the runner's.
 */
final class ZooKeeperLockStore implements AutoCloseable {

	/** Where the workers' locks live: the engine's default root, named so that the end-state check reads the same. */
	static final String ROOT = ZooKeeperLockEngine.DEFAULT_ROOT;

	/**
	 * The server's tick: a fifth of a second, so that sessions of up to 4 s are granted (between 2 and 20 ticks) and
	 * expire within a tick of their timeout.
	 */
	static final Duration TICK = Duration.ofMillis(200);

	/** The standalone server, null for an ensemble. */
	private final ZooKeeperProcess server;

	/** The ensemble, null for a standalone server. */
	private final ZooKeeperEnsemble ensemble;

	private CuratorFramework reader;

	/** A standalone server: the {@code zookeeper} store. */
	ZooKeeperLockStore(Path runDirectory) {
		this.server = ZooKeeperProcess.start(runDirectory, TICK);
		this.ensemble = null;
	}

	private ZooKeeperLockStore(ZooKeeperEnsemble ensemble) {
		this.server = null;
		this.ensemble = ensemble;
	}

	/** An ensemble of so many servers: the {@code zookeeper_ensemble} store. */
	static ZooKeeperLockStore ensemble(Path runDirectory, int servers) {
		return new ZooKeeperLockStore(ZooKeeperEnsemble.start(runDirectory, TICK, servers));
	}

	/**
	 * The Spring properties that point a worker's ZooKeeper engine at the server; the session timeout bounds how
	 * long a dead worker keeps its locks, the connection timeout how long a call waits for a connection.
	 */
	List<String> workerArguments(Duration sessionTimeout, Duration connectionTimeout) {
		return List.of("--distlock.backend=zookeeper",
				"--spring.autoconfigure.exclude=org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
				"--distlock.zookeeper.connect-string=" + connectString(),
				"--distlock.zookeeper.session-timeout=" + sessionTimeout.toMillis() + "ms",
				"--distlock.zookeeper.connection-timeout=" + connectionTimeout.toMillis() + "ms",
				"--distlock.zookeeper.root=" + ROOT);
	}

	String connectString() {
		return (this.ensemble != null) ? this.ensemble.connectString() : this.server.connectString();
	}

	/** The ensemble's leader, for the {@code leader_kill} fault. */
	LeaderEnsemble ensemble() {
		if (this.ensemble == null) {
			throw new IllegalStateException("A standalone ZooKeeper server has no leader to kill");
		}
		return this.ensemble;
	}

	long pid() {
		return standalone().pid();
	}

	/** The standalone server, whose faults (a stop, a restart) are not an ensemble's. */
	private ZooKeeperProcess standalone() {
		if (this.server == null) {
			throw new IllegalStateException("The standalone server's faults strike no ensemble");
		}
		return this.server;
	}

	/**
	 * SIGSTOP the server for the duration, then SIGCONT: a session whose timeout passed meanwhile ends on resuming,
	 * unless its client's reconnection is served first.
	 */
	void pause(Duration duration) throws InterruptedException {
		standalone().pause();
		try {
			TimeUnit.MILLISECONDS.sleep(duration.toMillis());
		}
		finally {
			standalone().resume();
		}
	}

	/** SIGKILL the server and start a new one on the same port and data; returns once it serves again. */
	void restart() {
		standalone().restart();
	}

	/**
	 * Every ephemeral node under the root, as its path below the root ({@code torture/hot-0/_c_...-lock-0000000042}):
	 * lock holders and waiters whose session still lives. The directories above them are containers, which the
	 * server removes once empty, in its own time; they hold nothing.
	 */
	List<String> heldKeys() {
		CuratorFramework client = reader();
		List<String> held = new ArrayList<>();
		try {
			collectEphemerals(client, ROOT, held);
		}
		catch (Exception ex) {
			throw new IllegalStateException("Could not read the lock nodes under " + ROOT + ": " + ex.getMessage(), ex);
		}
		return held;
	}

	private static void collectEphemerals(CuratorFramework client, String path, List<String> held) throws Exception {
		List<String> children;
		try {
			children = client.getChildren().forPath(path);
		}
		catch (KeeperException.NoNodeException ex) {
			// Removed meanwhile: an emptied container, or the root before the first lock.
			return;
		}
		for (String child : children) {
			String childPath = ZKPaths.makePath(path, child);
			Stat stat = client.checkExists().forPath(childPath);
			if (stat == null) {
				continue;
			}
			if (stat.getEphemeralOwner() != 0) {
				held.add(childPath.substring(ROOT.length() + 1));
			}
			else {
				collectEphemerals(client, childPath, held);
			}
		}
	}

	/** The runner's own client, opened at the first read (after the faults) and kept until the store closes. */
	private synchronized CuratorFramework reader() {
		if (this.reader == null) {
			// The client's start-up and connection notes (some forty lines) would drown the report printed next.
			LoggingSystem logging = LoggingSystem.get(ZooKeeperLockStore.class.getClassLoader());
			logging.setLogLevel("org.apache.zookeeper", LogLevel.WARN);
			logging.setLogLevel("org.apache.curator", LogLevel.WARN);
			CuratorFramework client = CuratorFrameworkFactory.newClient(connectString(), 10_000, 5_000,
					new RetryNTimes(5, 200));
			client.start();
			try {
				if (!client.blockUntilConnected(10, TimeUnit.SECONDS)) {
					client.close();
					throw new IllegalStateException("No connection to the ZooKeeper server at " + connectString());
				}
			}
			catch (InterruptedException ex) {
				client.close();
				Thread.currentThread().interrupt();
				throw new IllegalStateException(ex);
			}
			this.reader = client;
		}
		return this.reader;
	}

	@Override
	public synchronized void close() {
		try {
			if (this.reader != null) {
				this.reader.close();
			}
		}
		finally {
			if (this.server != null) {
				this.server.close();
			}
			if (this.ensemble != null) {
				this.ensemble.close();
			}
		}
	}

}
