package io.github.distlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.redisson.api.RedissonClient;

import io.github.distlock.LostLock;
import io.github.distlock.engine.LockHandle;
import io.github.distlock.engine.LockRequest;
import io.github.distlock.fixtures.redis.RedisExtension;
import io.github.distlock.fixtures.redis.RespClient;

import static org.assertj.core.api.Assertions.assertThat;
import io.github.distlock.fixtures.redis.RedisTestClients;

/**
 * The engine's script calls share one connection per master ({@link SharedConnections}): calls in flight together
 * travel on it together, each still answers for itself, and the connection comes back after it is cut. On a
 * private {@code redis-server}, since the tests pause and cut every client's connections.
 */
class RedisSharedConnectionIntegrationTests {

	@RegisterExtension
	static final RedisExtension redis = RedisExtension.localProcess();

	private static final int THREADS = 16;

	private final BlockingQueue<LostLock> lost = new LinkedBlockingQueue<>();

	private final ExecutorService executor = Executors.newFixedThreadPool(THREADS);

	private RedissonClient client;

	private LockScripts scripts;

	private RedisLockEngine engine;

	@BeforeEach
	void start() throws InterruptedException {
		this.client = RedisTestClients.create(redis.server(), Duration.ofSeconds(10));
		this.scripts = new LockScripts(this.client, null);
		this.engine = new RedisLockEngine(this.scripts, this.client, "distlock", this.lost::add,
				RedisLockEngine.DEFAULT_MAX_POLL);
		awaitSharedConnection();
	}

	@AfterEach
	void stop() throws InterruptedException {
		this.executor.shutdownNow();
		this.executor.awaitTermination(10, TimeUnit.SECONDS);
		this.engine.close();
		this.client.shutdown(0, 2, TimeUnit.SECONDS);
		try (RespClient raw = redis.client()) {
			raw.call("CLIENT", "UNPAUSE");
			assertThat(raw.lockKeys("distlock:*")).isEmpty();
		}
		assertThat(this.lost).isEmpty();
	}

	private static LockRequest request(String key) {
		return new LockRequest("shared", key, Duration.ofSeconds(30), Duration.ofSeconds(20), true, null);
	}

	@Test
	void callsInFlightTogetherTravelOnOneConnection() throws Exception {
		try (RespClient raw = redis.client()) {
			long connections = connectionsReceived(raw);
			long before = sent();
			raw.call("CLIENT", "PAUSE", "10000", "WRITE");
			// Held back by the pause, all sixteen attempts are in flight at once.
			List<Future<LockHandle>> acquired = acquireAtOnce("key-");
			awaitSent(before, THREADS);
			raw.call("CLIENT", "UNPAUSE");
			for (Future<LockHandle> handle : acquired) {
				assertThat(handle.get(10, TimeUnit.SECONDS).release()).isTrue();
			}
			// The ordinary way, each attempt in flight holds a pooled connection: the client had 2 idle.
			assertThat(connectionsReceived(raw) - connections).as("connections opened for %d attempts", THREADS)
				.isZero();
		}
		assertThat(this.scripts.sharedConnections().ordinaryCalls()).as("calls sent the ordinary way")
			.isEqualTo(this.warmUpOrdinaryCalls);
	}

	/**
	 * Sixteen calls that meet a forgotten script together get sixteen NOSCRIPT answers in one reply, each sent again
	 * by its text. A batch would fail as a whole here (Redisson 4.7 stalls such a batch until its timeout, 10 s in
	 * this test); on the shared connection each call recovers by itself, at once.
	 */
	@Test
	void callsThatMeetAForgottenScriptTogetherRecoverEachByItself() throws Exception {
		try (RespClient raw = redis.client()) {
			raw.call("SCRIPT", "FLUSH");
			long before = sent();
			raw.call("CLIENT", "PAUSE", "10000", "WRITE");
			List<Future<LockHandle>> acquired = acquireAtOnce("flushed-");
			awaitSent(before, THREADS);
			long unpaused = System.nanoTime();
			raw.call("CLIENT", "UNPAUSE");
			for (Future<LockHandle> handle : acquired) {
				assertThat(handle.get(10, TimeUnit.SECONDS).release()).isTrue();
			}
			assertThat(Duration.ofNanos(System.nanoTime() - unpaused)).as("all sixteen locked and released")
				.isLessThan(Duration.ofSeconds(5));
		}
	}

	/**
	 * Cutting every connection (the shared one with them) loses no lock and raises no alarm: the lock held across
	 * the cut is released as owned, and calls travel on a shared connection again afterwards.
	 */
	@Test
	void aCutSharedConnectionComesBackAndCostsNoLock() throws Exception {
		LockHandle held = this.engine.acquire(request("held"));
		try (RespClient raw = redis.client()) {
			raw.call("CLIENT", "KILL", "TYPE", "normal", "SKIPME", "yes");
		}
		long sharedBefore = this.scripts.sharedConnections().sharedCalls();
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
		while (this.scripts.sharedConnections().sharedCalls() == sharedBefore) {
			assertThat(System.nanoTime()).as("calls share a connection again").isLessThan(deadline);
			lockOnceTolerant("after-cut");
		}
		assertThat(held.release()).as("released as owned").isTrue();
		assertThat(this.lost).isEmpty();
	}

	/**
	 * Calls in flight on the shared connection when it is cut fail at once, as calls on connections of their own do,
	 * and are tried again within the caller's wait: not left to the command timeout (10 s here).
	 */
	@Test
	void callsInFlightWhenTheSharedConnectionIsCutFailAtOnce() throws Exception {
		try (RespClient raw = redis.client()) {
			long before = sent();
			raw.call("CLIENT", "PAUSE", "10000", "WRITE");
			List<Future<LockHandle>> acquired = acquireAtOnce("cut-");
			awaitSent(before, THREADS);
			long cut = System.nanoTime();
			raw.call("CLIENT", "KILL", "TYPE", "normal", "SKIPME", "yes");
			raw.call("CLIENT", "UNPAUSE");
			for (Future<LockHandle> handle : acquired) {
				assertThat(handle.get(20, TimeUnit.SECONDS).release()).isTrue();
			}
			assertThat(Duration.ofNanos(System.nanoTime() - cut)).as("all sixteen locked after the cut")
				.isLessThan(Duration.ofSeconds(5));
		}
	}

	private long warmUpOrdinaryCalls;

	/** The first call goes the ordinary way and has a connection borrowed; later calls share it. */
	private void awaitSharedConnection() throws InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
		while (this.scripts.sharedConnections().sharedCalls() == 0) {
			assertThat(System.nanoTime()).as("a connection is shared").isLessThan(deadline);
			assertThat(this.engine.acquire(request("warm-up")).release()).isTrue();
		}
		this.warmUpOrdinaryCalls = this.scripts.sharedConnections().ordinaryCalls();
	}

	/** One lock and release, where a failure right after the cut (a pooled connection not yet back) is retried. */
	private void lockOnceTolerant(String key) throws InterruptedException {
		LockHandle handle;
		try {
			handle = this.engine.acquire(request(key));
		}
		catch (RuntimeException ex) {
			Thread.sleep(50); // a reconnect has no event to wait on here; poll it
			return;
		}
		assertThat(handle.release()).isTrue();
	}

	private List<Future<LockHandle>> acquireAtOnce(String prefix) throws InterruptedException {
		CountDownLatch ready = new CountDownLatch(THREADS);
		List<Future<LockHandle>> acquired = new ArrayList<>();
		for (int i = 0; i < THREADS; i++) {
			String key = prefix + i;
			acquired.add(this.executor.submit(() -> {
				ready.countDown();
				return this.engine.acquire(request(key));
			}));
		}
		assertThat(ready.await(10, TimeUnit.SECONDS)).isTrue();
		return acquired;
	}

	/** Waits until the engine has sent a number of calls more than it had. */
	private void awaitSent(long before, int calls) throws InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
		while (sent() < before + calls) {
			assertThat(System.nanoTime()).as("%d calls sent", calls).isLessThan(deadline);
			Thread.sleep(5); // the calls are sent by threads that tell nothing until answered
		}
	}

	private long sent() {
		SharedConnections connections = this.scripts.sharedConnections();
		return connections.sharedCalls() + connections.ordinaryCalls();
	}

	private static long connectionsReceived(RespClient raw) {
		String info = (String) raw.call("INFO", "stats");
		for (String line : info.split("\r?\n")) {
			if (line.startsWith("total_connections_received:")) {
				return Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
			}
		}
		throw new IllegalStateException("INFO stats has no total_connections_received: " + info);
	}

}
