package io.github.distlock.zookeeper;

import java.time.Duration;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.CuratorEvent;
import org.apache.curator.framework.api.CuratorWatcher;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.data.Stat;
import org.jspecify.annotations.Nullable;

import io.github.distlock.LockAcquisitionException;
import io.github.distlock.LockLostListener;
import io.github.distlock.LockStoreConnectionException;
import io.github.distlock.LockStoreException;
import io.github.distlock.LostLock;
import io.github.distlock.engine.CheckableLockEngine;
import io.github.distlock.engine.LockEngineStatistics;
import io.github.distlock.engine.LockHandle;
import io.github.distlock.engine.LockRequest;
import io.github.distlock.engine.support.EngineLocks;
import io.github.distlock.engine.support.LeasedLockEngine;
import io.github.distlock.engine.support.LeaseWatchdog;

/**
 * A lock engine on ZooKeeper, through Apache Curator's framework API.
 * <p>
 * <b>Locks.</b> Each acquisition creates its own ephemeral sequential node under {@code /<root>/<name>/<key>} (name
 * and key escaped by {@link LockPaths}); the node with the lowest sequence number holds the lock, and each waiter
 * watches only the node before it ({@link LockQueue}). Ownership is the node, so every acquire is a new holder (no
 * reentrancy) and any thread may release. A waiter that gives up or is interrupted deletes its node; a wait time of
 * zero looks once.
 * <p>
 * <b>Fencing token.</b> The creation zxid of the lock's node ({@code Stat.czxid}): ZooKeeper's transaction ids grow
 * with every write to the ensemble, so a later holder of any lock always has a larger token. Sequence numbers would
 * not do: they restart when the lock's directory is deleted (it is a container node, removed when empty).
 * <p>
 * <b>What the lease means here.</b> ZooKeeper keeps an ephemeral node as long as its session lives, with no time to
 * live of its own; the session timeout bounds how long a crashed holder keeps a lock. The lease is the engine's
 * promise on top of that: a lock lives at most its lease past its last confirmation, where a confirmation (the
 * "renewal", every third of the lease, by the shared {@link LeaseWatchdog}) is a round trip that finds the node still
 * there. So a lock not renewed ({@code autoRenew = false}) ends with its lease and a renewed one at {@code maxLease}:
 * the engine then deletes its node and reports it lost ({@link LostLock.Reason#LEASE_EXPIRED}), as the other
 * engines' stores expire it. A lock whose confirmations fail (the server unreachable) until its lease runs out is
 * reported {@link LostLock.Reason#STORE_UNREACHABLE} and its node deleted once the server can be reached.
 * {@link LockHandle#extend} moves the lease deadline after one round trip that finds the node.
 * <p>
 * <b>Sessions.</b> While Curator reports the connection SUSPENDED, nothing is confirmed: {@link LockHandle#verify}
 * answers false without reporting a loss (the session, and the lock, may still be alive; but unlike a store with
 * leases, nothing bounds how long the server has kept it, since a session can expire on the server during the
 * disconnection). When the session is LOST every held lock is lost with {@link LostLock.Reason#NOT_OWNED}: the
 * server removes a session's ephemeral nodes when it ends it, so the store holds no lock for these holders any
 * more (a reconnection is a new session that owns none of them), which is what NOT_OWNED says. STORE_UNREACHABLE
 * would claim only that the lock must be presumed gone, whereas the end of the session is the server's (or
 * Curator's, after a disconnection as long as the session timeout) verdict that it is. A node deleted from outside
 * is found by a watch on the node itself (and at the latest by the next confirmation) and reported once, NOT_OWNED.
 * <p>
 * The engine does not own the client: the caller starts it, and closes it after {@link #close()}.
 */
public final class ZooKeeperLockEngine extends LeasedLockEngine implements CheckableLockEngine, AutoCloseable {

	/** The default root of every lock's path. */
	public static final String DEFAULT_ROOT = "/distlock";

	private static final Log logger = LogFactory.getLog(ZooKeeperLockEngine.class);

	private final CuratorFramework client;

	private final LockPaths paths;

	private final SessionState session;

	private final LockEngineStatistics statistics = new LockEngineStatistics();

	private final HeldNodes nodes;

	private final EngineLocks<ZooKeeperLockHandle> held;

	private final AtomicInteger waiting = new AtomicInteger();

	/** The server's refusal of the last lock call, while it lasts; null once a lock node was created again. */
	private volatile @Nullable String refusal;

	/**
	 * @param client a started client; its session timeout bounds how long a crashed holder keeps its locks
	 * @param root the path under which every lock lives
	 * @param lostListener told of every lock lost while held
	 */
	public ZooKeeperLockEngine(CuratorFramework client, String root, LockLostListener lostListener) {
		this.client = Objects.requireNonNull(client, "client");
		this.paths = new LockPaths(root);
		this.session = new SessionState(client, this::sessionLost);
		this.nodes = new HeldNodes(client, this.session, Objects.requireNonNull(lostListener, "lostListener"),
				this.statistics);
		this.held = this.nodes.locks();
		client.getConnectionStateListenable().addListener(this.session);
	}

	@Override
	public LockHandle acquire(LockRequest request) throws InterruptedException {
		if (!request.isExclusive()) {
			throw new UnsupportedOperationException("The ZooKeeper engine has exclusive locks only: " + request.mode()
					+ (request.permits() > 0 ? " with " + request.permits() + " permits" : ""));
		}
		long start = System.nanoTime();
		LockQueue queue = new LockQueue(this.client, this.paths.lockDirectory(request.name(), request.key()));
		Stat stat = new Stat();
		String node;
		try {
			node = queue.enqueue(stat);
		}
		catch (InterruptedException ex) {
			// Should the server have created the node, the session's end removes it: it is nobody's.
			throw ex;
		}
		catch (Exception ex) {
			throw failed(request, start, ex);
		}
		this.refusal = null;
		long grantedAt = 0;
		boolean acquired = false;
		try {
			grantedAt = waitForTurn(queue, node, request, start);
			// An answer held up longer than the lease (a reconnection, a stalled server) would hand over a lock whose
			// lease ran out on arrival, lost the moment it is held: look again while the wait time allows.
			while (System.nanoTime() - grantedAt >= request.initialLease().toNanos()) {
				if (System.nanoTime() - start >= request.waitTime().toNanos()) {
					this.statistics.countRefusal();
					throw new LockAcquisitionException(request.name(), request.key(), waited(start),
							new TimeoutException("ZooKeeper confirmed the lock's turn more "
									+ "than a lease after it was asked, and the wait time ran out"));
				}
				grantedAt = waitForTurn(queue, node, request, start);
			}
			acquired = true;
		}
		finally {
			if (!acquired) {
				queue.removeInBackground(node);
			}
		}
		return holding(request, node, stat.getCzxid(), stat.getEphemeralOwner(), grantedAt);
	}

	/**
	 * Returns when the node is first in its queue; throws when the wait time ran out first, or the store failed.
	 * @return when the look that found the node first was sent: no later than the moment the lock became this
	 * holder's, so the lease and {@code maxLease} count from there rather than from the start of the wait
	 */
	private long waitForTurn(LockQueue queue, String node, LockRequest request, long start)
			throws InterruptedException {
		long deadline = start + request.waitTime().toNanos();
		try {
			while (true) {
				long lookedAt = System.nanoTime();
				String predecessor = queue.predecessorOf(node);
				if (predecessor == null) {
					return lookedAt;
				}
				long remaining = deadline - System.nanoTime();
				if (remaining <= 0) {
					this.statistics.countRefusal();
					throw new LockAcquisitionException(request.name(), request.key(), waited(start), null);
				}
				this.waiting.incrementAndGet();
				try {
					queue.awaitGone(predecessor, remaining);
				}
				finally {
					this.waiting.decrementAndGet();
				}
			}
		}
		catch (InterruptedException | LockAcquisitionException ex) {
			throw ex;
		}
		catch (Exception ex) {
			throw failed(request, start, ex);
		}
	}

	/**
	 * Makes a handle for a node that is first in its queue, watched so that a deletion from outside is a loss at
	 * once rather than at the next confirmation.
	 */
	private ZooKeeperLockHandle holding(LockRequest request, String node, long token, long session,
			long grantedAt) {
		long leaseNanos = request.lease().toNanos();
		long maxDeadline = (request.maxLease() != null) ? grantedAt + request.maxLease().toNanos() : Long.MAX_VALUE;
		ZooKeeperLockHandle handle = new ZooKeeperLockHandle(this.nodes, request.name(), request.key(), node, token, session,
				grantedAt,
				request.initialLease().toNanos(), leaseNanos, request.autoRenew(), maxDeadline);
		this.held.hold(handle);
		// Set in the background, so a free lock costs no round trip more: a node deleted before the watch is in place
		// answers NONODE, which is the same loss. The watch is a shortcut all the same; the watchdog's confirmations
		// find a deletion anyway.
		try {
			this.client.checkExists()
				.usingWatcher(new OwnNodeWatcher(handle))
				.inBackground((client, event) -> ownNodeChecked(handle, event))
				.forPath(node);
		}
		catch (Exception ex) {
			logger.debug("Could not watch " + handle + "; its confirmations will notice a deletion", ex);
		}
		return handle;
	}

	private void ownNodeChecked(ZooKeeperLockHandle handle, CuratorEvent event) {
		if (KeeperException.Code.get(event.getResultCode()) == KeeperException.Code.NONODE && handle.isHeld()) {
			this.held.lost(handle, LostLock.Reason.NOT_OWNED);
		}
	}

	/** The session ended: the server drops (or has dropped) every node it had, so every held lock is lost. */
	private void sessionLost() {
		for (ZooKeeperLockHandle handle : this.held.all()) {
			this.held.lost(handle, LostLock.Reason.NOT_OWNED);
		}
	}

	/**
	 * A refusal fails the call at once, as what it is, and stands until a lock node is created again; anything else
	 * means the server could not be reached in time.
	 */
	private RuntimeException failed(LockRequest request, long start, Exception cause) {
		KeeperException refused = ZooKeeperFailures.refusal(cause);
		if (refused != null) {
			String reason = ZooKeeperFailures.describeRefusal(refused, this.paths.root());
			this.refusal = "ZooKeeper refuses distlock's lock nodes: " + reason;
			return new LockStoreException(request.name(), request.key(), refused.code().name(),
					"ZooKeeper refused the lock: " + reason, cause);
		}
		return new LockAcquisitionException(request.name(), request.key(), waited(start), cause);
	}

	/**
	 * Proves, before the first lock, that the server lets this client do what locks need: creates and deletes an
	 * ephemeral node under the root. A missing permission fails here, naming itself, rather than at the first
	 * locked call.
	 * @throws LockStoreConnectionException if the server refuses or does not answer
	 */
	public void checkAccess() {
		String store = "ZooKeeper at " + this.client.getZookeeperClient().getCurrentConnectionString();
		String probe = ZKPaths.makePath(this.paths.root(), "distlock-check-" + UUID.randomUUID());
		try {
			this.client.create().creatingParentContainersIfNeeded().withMode(CreateMode.EPHEMERAL).forPath(probe);
			this.client.delete().guaranteed().forPath(probe);
		}
		catch (Exception ex) {
			KeeperException refused = ZooKeeperFailures.refusal(ex);
			if (refused != null) {
				throw new LockStoreConnectionException(store,
						"ZooKeeper refused distlock's lock nodes: "
								+ ZooKeeperFailures.describeRefusal(refused, this.paths.root()),
						"Grant the client's identity CREATE, DELETE and READ on " + this.paths.root()
								+ ", or choose a lock root it may write (distlock.zookeeper.root)",
						ex);
			}
			if (ex instanceof InterruptedException) {
				Thread.currentThread().interrupt();
			}
			throw new LockStoreConnectionException(store,
					ZooKeeperFailures.describe(ex, Duration.ZERO, this.paths.root()),
					"Check the connect string and that the ensemble is running", ex);
		}
	}

	/** One existence check of the lock root, answered within the timeout. */
	@Override
	public Duration ping(Duration timeout) {
		long start = System.nanoTime();
		CompletableFuture<Boolean> answer = new CompletableFuture<>();
		try {
			this.client.checkExists().inBackground((client, event) -> HeldNodes.answer(answer, event)).forPath("/");
			answer.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while checking ZooKeeper", ex);
		}
		catch (Exception ex) {
			throw new IllegalStateException("ZooKeeper did not answer the check", ex);
		}
		return Duration.ofNanos(System.nanoTime() - start);
	}

	@Override
	public String describeFailure(Throwable failure, Duration timeout) {
		return ZooKeeperFailures.describe(failure, timeout, this.paths.root());
	}

	@Override
	public @Nullable String standingRefusal() {
		return this.refusal;
	}

	private static Duration waited(long start) {
		return Duration.ofNanos(System.nanoTime() - start);
	}

	@Override
	protected EngineLocks<?> engineLocks() {
		return this.held;
	}

	@Override
	public int waitingCount() {
		return this.waiting.get();
	}

	/**
	 * Stops confirming and listening. Held locks stay until their owners release them or the client's session ends;
	 * the caller closes the client.
	 */
	@Override
	public void close() {
		this.held.close();
		this.client.getConnectionStateListenable().removeListener(this.session);
	}

	/** Reports the lock lost when its own node is deleted by anyone but its owner. */
	private final class OwnNodeWatcher implements CuratorWatcher {

		private final ZooKeeperLockHandle handle;

		OwnNodeWatcher(ZooKeeperLockHandle handle) {
			this.handle = handle;
		}

		@Override
		public void process(WatchedEvent event) {
			if (event.getType() != Watcher.Event.EventType.NodeDeleted) {
				// Connection events: the watch stays registered, and the session's own listener handles them.
				return;
			}
			if (this.handle.isHeld()) {
				ZooKeeperLockEngine.this.held.lost(this.handle, LostLock.Reason.NOT_OWNED);
			}
		}

	}

}
