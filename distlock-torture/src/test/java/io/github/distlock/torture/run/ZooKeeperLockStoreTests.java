package io.github.distlock.torture.run;

import java.net.SocketTimeoutException;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryNTimes;
import org.apache.zookeeper.CreateMode;
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

	@Test
	@Timeout(value = 2, unit = TimeUnit.MINUTES)
	void aRestartOnItsDataKeepsSessionsNodesAndTheGrowthOfTransactionIds() throws Exception {
		try (ZooKeeperLockStore store = new ZooKeeperLockStore(this.dir);
				CuratorFramework client = CuratorFrameworkFactory.builder()
					.connectString(store.connectString())
					.sessionTimeoutMs(4000)
					.connectionTimeoutMs(1000)
					.retryPolicy(new RetryNTimes(20, 250))
					.build()) {
			client.start();
			assertThat(client.blockUntilConnected(30, TimeUnit.SECONDS)).isTrue();
			String node = client.create()
				.creatingParentContainersIfNeeded()
				.withMode(CreateMode.EPHEMERAL_SEQUENTIAL)
				.forPath(ZooKeeperLockStore.ROOT + "/torture/hot-0/lock-");
			long session = client.getZookeeperClient().getZooKeeper().getSessionId();
			Stat before = client.checkExists().forPath(node);
			assertThat(store.heldKeys()).containsExactly(node.substring(ZooKeeperLockStore.ROOT.length() + 1));
			long pid = store.pid();

			store.restart();

			assertThat(store.pid()).isNotEqualTo(pid);
			assertThat(client.blockUntilConnected(30, TimeUnit.SECONDS)).isTrue();
			assertThat(client.getZookeeperClient().getZooKeeper().getSessionId()).isEqualTo(session);
			assertThat(client.checkExists().forPath(node)).isNotNull();
			assertThat(store.heldKeys()).containsExactly(node.substring(ZooKeeperLockStore.ROOT.length() + 1));
			String next = client.create().withMode(CreateMode.EPHEMERAL_SEQUENTIAL)
				.forPath(ZooKeeperLockStore.ROOT + "/torture/hot-0/lock-");
			assertThat(client.checkExists().forPath(next).getCzxid()).isGreaterThan(before.getCzxid());
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

	@Test
	@Timeout(value = 2, unit = TimeUnit.MINUTES)
	void aPausedServerAnswersNothingUntilItIsContinued() throws Exception {
		try (ZooKeeperProcess server = ZooKeeperProcess.start(this.dir, ZooKeeperLockStore.TICK)) {
			assertThat(server.fourLetterWord("ruok")).isEqualTo("imok");
			server.pause();
			try {
				// The kernel still accepts the connection; nobody reads from it.
				assertThatExceptionOfType(SocketTimeoutException.class).isThrownBy(() -> server.fourLetterWord("ruok"));
			}
			finally {
				server.resume();
			}
			assertThat(server.fourLetterWord("ruok")).isEqualTo("imok");
		}
	}

}
