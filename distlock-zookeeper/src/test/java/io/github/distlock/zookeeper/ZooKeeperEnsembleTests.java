package io.github.distlock.zookeeper;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryNTimes;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingCluster;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.github.distlock.LockAcquisitionException;
import io.github.distlock.LostLock;
import io.github.distlock.engine.LockHandle;
import io.github.distlock.engine.LockRequest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * A three-server ensemble (real ZooKeeper servers in this JVM) that loses its leader while a lock is held: the
 * session, and with it the lock, outlives the election, nobody else gets the lock meanwhile, and nothing is
 * reported lost that was not.
 */
class ZooKeeperEnsembleTests {

	private static final int TICK_MS = 200;

	/** Long enough for an election (a few ticks) and a reconnection to another server to fit in. */
	private static final int SESSION_TIMEOUT_MS = 4000;

	private final BlockingQueue<LostLock> lost = new LinkedBlockingQueue<>();

	private final List<AutoCloseable> closeables = new ArrayList<>();

	private TestingCluster cluster;

	@BeforeEach
	void startEnsemble() throws Exception {
		ServerPorts.keepTheJvmOnServerFailure();
		System.setProperty("zookeeper.forceSync", "no");
		// "srvr" tells a server's role, so the test knows which one leads.
		System.setProperty("zookeeper.4lw.commands.whitelist", "srvr");
		List<InstanceSpec> specs = new ArrayList<>();
		for (int id = 1; id <= 3; id++) {
			specs.add(new InstanceSpec(null, ServerPorts.free(), ServerPorts.free(), ServerPorts.free(), true, id,
					TICK_MS, 0));
		}
		this.cluster = new TestingCluster(specs);
		this.cluster.start();
	}

	@AfterEach
	void stopEnsemble() throws Exception {
		for (int i = this.closeables.size() - 1; i >= 0; i--) {
			this.closeables.get(i).close();
		}
		this.cluster.close();
	}

	@Test
	void aLeaderLossKeepsTheHeldLockAndTheEnsembleLocksOn() throws Exception {
		ZooKeeperLockEngine holder = engine();
		ZooKeeperLockEngine other = engine();
		LockHandle held = holder.acquire(request(Duration.ZERO));

		InstanceSpec leader = leader();
		assertThat(this.cluster.killServer(leader)).isTrue();

		// The two servers left elect a leader; the holder's session moves to one of them.
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
		boolean confirmed = false;
		while (!confirmed && System.nanoTime() < deadline) {
			confirmed = held.verify();
			if (!confirmed) {
				Thread.sleep(50);
			}
		}
		assertThat(confirmed).as("the lock confirmed by the ensemble after the election").isTrue();
		assertThat(leader()).as("a new leader").isNotEqualTo(leader);

		LockAcquisitionException refused = null;
		try {
			other.acquire(request(Duration.ZERO)).release();
		}
		catch (LockAcquisitionException ex) {
			refused = ex;
		}
		assertThat(refused).as("the lock still held after the election").isNotNull();
		assertThat(refused.isStoreUnavailable()).as("refused because it is held, not for want of a server").isFalse();

		assertThat(held.release()).isTrue();
		LockHandle next = other.acquire(request(Duration.ofSeconds(10)));
		assertThat(next.token()).isGreaterThan(held.token());
		assertThat(next.release()).isTrue();
		assertThat(this.lost).as("no false alarm across the election").isEmpty();
	}

	@Test
	void losingTheQuorumMakesTheLockUnconfirmedThenLostNeverSilentlyHeld() throws Exception {
		ZooKeeperLockEngine holder = engine();
		LockHandle held = holder.acquire(new LockRequest("zk", "quorum", Duration.ofSeconds(2), Duration.ZERO,
				true, null));
		InstanceSpec leader = leader();
		for (InstanceSpec spec : this.cluster.getInstances()) {
			if (!spec.equals(leader)) {
				this.cluster.killServer(spec);
			}
		}
		// A lone server serves nobody: the lock cannot be confirmed, and is reported lost, once, by the lease or the
		// session's end, whichever comes first.
		LostLock loss = this.lost.poll(SESSION_TIMEOUT_MS * 3L, TimeUnit.MILLISECONDS);
		assertThat(loss).as("the loss reported").isNotNull();
		assertThat(loss.key()).isEqualTo("quorum");
		assertThat(loss.reason()).isIn(LostLock.Reason.STORE_UNREACHABLE, LostLock.Reason.NOT_OWNED);
		assertThat(held.verify()).isFalse();
		assertThat(held.isLost()).isTrue();
		assertThat(this.lost.poll(200, TimeUnit.MILLISECONDS)).as("reported once").isNull();
	}

	private ZooKeeperLockEngine engine() throws InterruptedException {
		CuratorFramework client = CuratorFrameworkFactory.builder()
			.connectString(this.cluster.getConnectString())
			.sessionTimeoutMs(SESSION_TIMEOUT_MS)
			.connectionTimeoutMs(1000)
			.retryPolicy(new RetryNTimes(30, 100))
			.build();
		client.start();
		this.closeables.add(client);
		assertThat(client.blockUntilConnected(20, TimeUnit.SECONDS)).as("connected to the ensemble").isTrue();
		ZooKeeperLockEngine engine = new ZooKeeperLockEngine(client, ZooKeeperLockEngine.DEFAULT_ROOT,
				this.lost::add);
		this.closeables.add(engine);
		return engine;
	}

	private static LockRequest request(Duration wait) {
		return new LockRequest("zk", "leader-loss", Duration.ofSeconds(10), wait, true, null);
	}

	/** The server that says it leads, asked over its client port; the ensemble may need a moment to have one. */
	private InstanceSpec leader() throws Exception {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
		while (System.nanoTime() < deadline) {
			for (InstanceSpec spec : this.cluster.getInstances()) {
				if (mode(spec).equals("leader")) {
					return spec;
				}
			}
			Thread.sleep(50);
		}
		throw new AssertionError("No server of the ensemble leads");
	}

	private static String mode(InstanceSpec spec) {
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress("127.0.0.1", spec.getPort()), 500);
			socket.setSoTimeout(1000);
			OutputStream out = socket.getOutputStream();
			out.write("srvr".getBytes(StandardCharsets.US_ASCII));
			out.flush();
			BufferedReader reader = new BufferedReader(
					new InputStreamReader(socket.getInputStream(), StandardCharsets.US_ASCII));
			for (String line = reader.readLine(); line != null; line = reader.readLine()) {
				if (line.startsWith("Mode: ")) {
					return line.substring("Mode: ".length()).strip();
				}
			}
		}
		catch (Exception ex) {
			// A killed server, or one not serving yet.
		}
		return "";
	}

}
