package io.github.distlock.zookeeper;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.CuratorEvent;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;
import org.jspecify.annotations.Nullable;

import io.github.distlock.LockLostListener;
import io.github.distlock.LockStoreException;
import io.github.distlock.LostLock;
import io.github.distlock.engine.LockEngineStatistics;
import io.github.distlock.engine.support.EngineLocks;
import io.github.distlock.engine.support.LeaseWatchdog;

/**
 * What held locks' handles ask of ZooKeeper: a release deletes the holder's own node, telling a node already gone (a
 * loss) from a delete whose answer was lost; a check, an extension and the watchdog's confirmation look for the node.
 * While the connection is suspended nothing is confirmed. The locks themselves, their renewal and every loss are kept
 * by {@link EngineLocks}.
 */
final class HeldNodes implements EngineLocks.Store<ZooKeeperLockHandle> {

	/** How long a confirmation may take before it counts as failed; a tenth of a lease comes round again. */
	private static final Duration CONFIRMATION_TIMEOUT = Duration.ofSeconds(5);

	private static final Log logger = LogFactory.getLog(HeldNodes.class);

	private final CuratorFramework client;

	private final SessionState session;

	private final EngineLocks<ZooKeeperLockHandle> locks;

	HeldNodes(CuratorFramework client, SessionState session, LockLostListener listener,
			LockEngineStatistics statistics) {
		this.client = client;
		this.session = session;
		this.locks = new EngineLocks<>(ZooKeeperLockEngine.class, statistics, listener, this,
				(lossReporter) -> new LeaseWatchdog<>("distlock-zookeeper-watchdog", Integer.MAX_VALUE, this::confirm,
						(failure) -> false, lossReporter, statistics));
	}

	/** The engine's held locks. */
	EngineLocks<ZooKeeperLockHandle> locks() {
		return this.locks;
	}

	boolean release(ZooKeeperLockHandle handle) {
		if (!this.locks.beginRelease(handle)) {
			return false;
		}
		try {
			deleteOwnNode(handle);
			handle.markReleased();
			return true;
		}
		catch (KeeperException.NoNodeException ex) {
			this.locks.lostAtRelease(handle, LostLock.Reason.NOT_OWNED);
			return false;
		}
		catch (Exception ex) {
			handle.markReleased();
			throw new LockStoreException(handle.name(), handle.key(), ex.getClass().getSimpleName(),
					"Could not release " + handle + " in ZooKeeper; it is deleted in the background once the server"
							+ " answers, and at the latest when the session ends",
					ex);
		}
	}

	/**
	 * Deletes a holder's node, telling "it was already gone" (a loss) apart from "our delete went through but its
	 * answer was lost". The first try is one request without Curator's retries: a missing node then was deleted by
	 * someone else, and an expired session means the server removed the node with it. Should the connection drop
	 * first, the server may have applied the delete and died or disconnected before answering; Curator then retries
	 * until the server answers (and, should the caller give up, deletes in the background). A node missing by then
	 * is this delete's own doing only if the session that created it is still the client's: nobody else deletes a
	 * holder's node. If the session changed, the node went with the old one: a holder frozen (a stop, a long pause)
	 * past the session timeout resumes, sends its delete into a connection the server has closed, and its retry
	 * runs in a new session while another holder already has the lock. That is reported as a loss, also in the one
	 * case it cannot be told from: a delete applied whose answer was lost and whose session then expired before the
	 * client reconnected.
	 * @throws KeeperException.NoNodeException when the node was gone before this delete
	 */
	private void deleteOwnNode(ZooKeeperLockHandle handle) throws Exception {
		try {
			this.client.getZookeeperClient().getZooKeeper().delete(handle.node, -1);
		}
		catch (KeeperException.SessionExpiredException ex) {
			throw nodeGoneWithSession(handle);
		}
		catch (KeeperException.ConnectionLossException | KeeperException.OperationTimeoutException ex) {
			try {
				this.client.delete().guaranteed().forPath(handle.node);
			}
			catch (KeeperException.SessionExpiredException expired) {
				throw nodeGoneWithSession(handle);
			}
			catch (KeeperException.NoNodeException deletedBefore) {
				if (currentSession() != handle.session) {
					throw nodeGoneWithSession(handle);
				}
				logger.debug("The delete of " + handle.node + " was applied before its answer was lost");
			}
		}
	}

	private static KeeperException.NoNodeException nodeGoneWithSession(ZooKeeperLockHandle handle) {
		return new KeeperException.NoNodeException(handle.node + " (its session 0x"
				+ Long.toHexString(handle.session) + " ended before the release)");
	}

	/** The client's session now, or 0 while it has none. */
	private long currentSession() {
		try {
			return this.client.getZookeeperClient().getZooKeeper().getSessionId();
		}
		catch (Exception ex) {
			return 0;
		}
	}

	/**
	 * Asks the server whether the node is still there. While the connection is suspended nothing is confirmed, and
	 * the answer is false without a loss: the lock may still be ours, but the server may have ended the session.
	 */
	boolean verify(ZooKeeperLockHandle handle) {
		if (!handle.isHeld() || !this.session.isConnected()) {
			this.locks.awaitLossReport(handle);
			return false;
		}
		// Unanswered, it is unconfirmed; if it stays so, the lease deadline or the end of the session reports the loss.
		return Boolean.TRUE.equals(findNode(handle));
	}

	/**
	 * Looks for the handle's node in one round trip.
	 * @return whether it is there (the loss told when it is not), or null when the server did not answer
	 */
	private @Nullable Boolean findNode(ZooKeeperLockHandle handle) {
		Stat stat;
		try {
			stat = this.client.checkExists().forPath(handle.node);
		}
		catch (Exception ex) {
			return null;
		}
		if (stat == null) {
			this.locks.lost(handle, LostLock.Reason.NOT_OWNED);
			return false;
		}
		return true;
	}

	/**
	 * Moves the lease deadline on after one round trip that finds the node: the node itself needs nothing, as it
	 * lives as long as the session. An unreachable server extends nothing and loses nothing.
	 */
	boolean extend(ZooKeeperLockHandle handle, Duration ttl) {
		EngineLocks.Extension extension = this.locks.beginExtension(handle, ttl);
		if (extension == null || !this.session.isConnected()) {
			return false;
		}
		if (!Boolean.TRUE.equals(findNode(handle))) {
			return false;
		}
		// Confirmed after the lease ran out, it extends nothing: the lock is lost at its deadline.
		return extension.confirmed(handle);
	}

	/**
	 * The watchdog's renewal: one existence check per lock, all sent before any answer is awaited. A suspended
	 * connection fails at once, so that the lease deadline, not Curator's retries, decides.
	 */
	private CompletionStage<List<Boolean>> confirm(List<ZooKeeperLockHandle> handles, List<Long> ttlMillis) {
		if (!this.session.isConnected()) {
			return CompletableFuture.failedFuture(new KeeperException.ConnectionLossException());
		}
		List<CompletableFuture<Boolean>> answers = new ArrayList<>(handles.size());
		for (ZooKeeperLockHandle handle : handles) {
			CompletableFuture<Boolean> answer = new CompletableFuture<>();
			answers.add(answer);
			try {
				this.client.checkExists()
					.inBackground((client, event) -> answer(answer, event))
					.forPath(handle.node);
			}
			catch (Exception ex) {
				answer.completeExceptionally(ex);
			}
		}
		return CompletableFuture.allOf(answers.toArray(CompletableFuture[]::new))
			.orTimeout(CONFIRMATION_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
			.thenApply((done) -> answers.stream().map(CompletableFuture::join).toList());
	}

	/** Completes a background existence check's answer: whether the node is there, or the failure. */
	static void answer(CompletableFuture<Boolean> answer, CuratorEvent event) {
		KeeperException.Code code = KeeperException.Code.get(event.getResultCode());
		if (code == KeeperException.Code.OK) {
			answer.complete(true);
		}
		else if (code == KeeperException.Code.NONODE) {
			answer.complete(false);
		}
		else {
			answer.completeExceptionally(KeeperException.create(code, event.getPath()));
		}
	}

	/**
	 * Deletes the node of a lost lock that is still there (its lease ran out by the holder's clock, the server
	 * unreachable), once its holder has been told: the deletion hands the lock to the next waiter, who must not enter
	 * while the holder's listeners have not heard (as the etcd engine was found doing, the torture run's
	 * OVERLAP_UNREPORTED). The name is unique, so this never touches another holder's node.
	 */
	@Override
	public void afterLoss(ZooKeeperLockHandle handle, LostLock.Reason reason) {
		if (reason == LostLock.Reason.NOT_OWNED) {
			return;
		}
		try {
			this.client.delete().quietly().guaranteed().inBackground().forPath(handle.node);
		}
		catch (Exception ex) {
			// Only a closed client refuses; its session's end removes the node.
		}
	}

	@Override
	public String holder(ZooKeeperLockHandle handle) {
		return handle.node;
	}

}
