package io.github.distlock.torture.run;

import java.net.SocketTimeoutException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The ZooKeeper server process of a run: a restart on its data keeps sessions and nodes (which is what makes the
 * {@code zk_restart} fault one that must cost no session), the end-state check sees exactly the ephemeral nodes, and a
 * paused server answers nothing (which is what the {@code zk_pause} fault relies on).
 */
class ZooKeeperLockStoreTests {

	@TempDir
	Path dir;

	/**
	 * With a plain ZooKeeper client, which never gives its session up by itself: the server recovers the session from
	 * its transaction log and gives it its full timeout again, however long the restart took. (Curator, as the
	 * workers use it, ends a session of its own accord once it has been disconnected for the session timeout, so a
	 * worker keeps its session only across a restart shorter than that; that is the fault's business, not the
	 * server's.) The server restores each session with its full timeout from the moment it has loaded its data, so the
	 * client must be back within that: 30 s here. With the workers' 4 s, a restart in a parallel build (two modules'
	 * tests at once) once took longer, and the session expired.
	 */
	@Test
	@Timeout(value = 2, unit = TimeUnit.MINUTES)
	void aRestartOnItsDataKeepsSessionsNodesAndTheGrowthOfTransactionIds() throws Exception {
		BlockingQueue<WatchedEvent> events = new LinkedBlockingQueue<>();
		try (ZooKeeperLockStore store = new ZooKeeperLockStore(this.dir);
				ZooKeeper client = new ZooKeeper(store.connectString(), 30_000, events::add)) {
			awaitConnected(events);
			assertThat(client.getSessionTimeout()).as("the session timeout the server granted").isEqualTo(30_000);
			client.create(ZooKeeperLockStore.ROOT, new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
			client.create(ZooKeeperLockStore.ROOT + "/torture", new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE,
					CreateMode.PERSISTENT);
			client.create(ZooKeeperLockStore.ROOT + "/torture/hot-0", new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE,
					CreateMode.PERSISTENT);
			String node = client.create(ZooKeeperLockStore.ROOT + "/torture/hot-0/lock-", new byte[0],
					ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL_SEQUENTIAL);
			long session = client.getSessionId();
			Stat before = client.exists(node, false);
			assertThat(store.heldKeys()).containsExactly(node.substring(ZooKeeperLockStore.ROOT.length() + 1));
			long pid = store.pid();
			events.clear();

			store.restart();

			assertThat(store.pid()).isNotEqualTo(pid);
			awaitConnected(events);
			assertThat(client.getSessionId()).isEqualTo(session);
			assertThat(client.exists(node, false)).isNotNull();
			assertThat(store.heldKeys()).containsExactly(node.substring(ZooKeeperLockStore.ROOT.length() + 1));
			String next = client.create(ZooKeeperLockStore.ROOT + "/torture/hot-0/lock-", new byte[0],
					ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL_SEQUENTIAL);
			assertThat(client.exists(next, false).getCzxid()).isGreaterThan(before.getCzxid());
		}
	}

	/** Waits for the client's next connection; a session the server ended instead fails the test. */
	private static void awaitConnected(BlockingQueue<WatchedEvent> events) throws InterruptedException {
		while (true) {
			WatchedEvent event = events.poll(60, TimeUnit.SECONDS);
			assertThat(event).as("a connection to the server within a minute").isNotNull();
			assertThat(event.getState()).as("the session's state").isNotEqualTo(Watcher.Event.KeeperState.Expired);
			if (event.getState() == Watcher.Event.KeeperState.SyncConnected) {
				return;
			}
		}
	}

	/**
	 * A build runs other modules' tests beside this one, and their servers pick free ports too: a server whose port
	 * another took between choice and bind must not take the other's answers for its own.
	 */
	@Test
	@Timeout(value = 2, unit = TimeUnit.MINUTES)
	void aServerWhosePortAnotherServerHasSaysSoInsteadOfTakingItsAnswers() throws Exception {
		try (ZooKeeperProcess other = ZooKeeperProcess.start(this.dir.resolve("other"), ZooKeeperLockStore.TICK)) {
			assertThatExceptionOfType(ZooKeeperProcess.PortTaken.class)
				.isThrownBy(() -> ZooKeeperProcess.start(this.dir.resolve("late"), ZooKeeperLockStore.TICK,
						other.port()))
				.withMessageContaining("Port " + other.port() + " was taken");
			assertThat(other.fourLetterWord("ruok")).as("the other server, untouched").isEqualTo("imok");
		}
	}

	/** What {@code ss} says listens on the port, for a failure's message. */
	private static String listeners(int port) {
		try {
			Process ss = new ProcessBuilder("ss", "-ltnp", "sport = :" + port).redirectErrorStream(true).start();
			String output = new String(ss.getInputStream().readAllBytes());
			ss.waitFor(5, TimeUnit.SECONDS);
			return output.strip();
		}
		catch (Exception ex) {
			return "(ss failed: " + ex + ")";
		}
	}

	@Test
	@Timeout(value = 2, unit = TimeUnit.MINUTES)
	void aPausedServerAnswersNothingUntilItIsContinued() throws Exception {
		try (ZooKeeperProcess server = ZooKeeperProcess.start(this.dir, ZooKeeperLockStore.TICK)) {
			assertThat(server.fourLetterWord("ruok")).isEqualTo("imok");
			server.pause();
			try {
				// The kernel still accepts the connection; nobody reads from it.
				assertThatExceptionOfType(SocketTimeoutException.class).as("ruok to the stopped server")
					.isThrownBy(() -> {
						String answer = server.fourLetterWord("ruok");
						throw new AssertionError("answered \"" + answer + "\" on port " + server.port()
								+ " while stopped; listening there: " + listeners(server.port()));
					});
			}
			finally {
				server.resume();
			}
			assertThat(server.fourLetterWord("ruok")).isEqualTo("imok");
		}
	}

}
