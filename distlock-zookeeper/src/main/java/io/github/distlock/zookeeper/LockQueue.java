package io.github.distlock.zookeeper;

import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.CuratorWatcher;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;
import org.jspecify.annotations.Nullable;

/**
 * The queue of one lock in ZooKeeper: each acquisition appends an ephemeral sequential node to the lock's directory,
 * and the node with the lowest sequence number holds the lock. A node that is not first watches only the node just
 * before it, so a release wakes one waiter, not all of them, and waiters are served in the order they came.
 * <p>
 * The node belongs to the acquisition, not to a thread or to this object: whoever has the node's path owns the lock.
 * Waiting is on a {@link CountDownLatch}, so a virtual thread waiting for a lock does not pin its carrier.
 */
final class LockQueue {

	/** ZooKeeper appends a ten-digit sequence number to a sequential node's name. */
	private static final int SEQUENCE_DIGITS = 10;

	private static final Comparator<String> BY_SEQUENCE = Comparator.comparing(LockQueue::sequence);

	private final CuratorFramework client;

	private final String directory;

	LockQueue(CuratorFramework client, String directory) {
		this.client = client;
		this.directory = directory;
	}

	/**
	 * Appends a node for a new acquisition. Protection (a unique id in the node's name) lets Curator find the node
	 * again if the connection fails after the server created it, and delete it if the create is given up, so a lost
	 * answer cannot leave an orphan queued ahead of everyone.
	 * @param stat filled with the new node's stat: its creation zxid is the fencing token
	 * @return the node's full path
	 */
	String enqueue(Stat stat) throws Exception {
		String node = this.client.create()
			.storingStatIn(stat)
			.creatingParentContainersIfNeeded()
			.withProtection()
			.withMode(CreateMode.EPHEMERAL_SEQUENTIAL)
			.forPath(ZKPaths.makePath(this.directory, LockPaths.NODE_PREFIX));
		if (stat.getCzxid() == 0) {
			// The create's answer was lost and Curator found the node again by its protected name: that leaves the
			// stat unfilled, and a token of 0. The node's own stat says when it was created.
			try {
				Stat found = this.client.checkExists().forPath(node);
				if (found == null) {
					throw new KeeperException.NoNodeException(node);
				}
				stat.setCzxid(found.getCzxid());
				stat.setEphemeralOwner(found.getEphemeralOwner());
			}
			catch (Exception ex) {
				removeInBackground(node);
				throw ex;
			}
		}
		return node;
	}

	/**
	 * Where the node stands: null when it is first (it holds the lock), else the path of the node just before it.
	 * @throws NodeVanishedException if the node is no longer in the queue (deleted from outside, or its session ended)
	 */
	@Nullable String predecessorOf(String node) throws Exception {
		List<String> children = this.client.getChildren().forPath(this.directory);
		children.sort(BY_SEQUENCE);
		String own = ZKPaths.getNodeFromPath(node);
		int position = children.indexOf(own);
		if (position < 0) {
			throw new NodeVanishedException(node);
		}
		return (position == 0) ? null : ZKPaths.makePath(this.directory, children.get(position - 1));
	}

	/**
	 * Waits until the predecessor goes away (or anything else happens to it, or to the session: the caller looks
	 * again in every case), or the time runs out.
	 * @return false when the time ran out with the predecessor still there
	 */
	boolean awaitGone(String predecessor, long timeoutNanos) throws Exception {
		CountDownLatch changed = new CountDownLatch(1);
		CuratorWatcher watcher = (event) -> changed.countDown();
		Stat stat = this.client.checkExists().usingWatcher(watcher).forPath(predecessor);
		if (stat == null) {
			return true;
		}
		return changed.await(timeoutNanos, TimeUnit.NANOSECONDS);
	}

	/**
	 * Deletes a node in the background, retried by Curator until the server confirms it (or the session ends, which
	 * deletes it anyway): for a waiter that gives up, when its caller must not wait for the store.
	 */
	void removeInBackground(String node) {
		try {
			this.client.delete().quietly().guaranteed().inBackground().forPath(node);
		}
		catch (Exception ex) {
			// Only a closed client refuses a background call; its session's end removes the node.
		}
	}

	/**
	 * The sequence number of a node's name. Protected names start with Curator's id, so only the suffix orders the
	 * queue.
	 */
	static String sequence(String nodeName) {
		return (nodeName.length() <= SEQUENCE_DIGITS) ? nodeName
				: nodeName.substring(nodeName.length() - SEQUENCE_DIGITS);
	}

	/** The node of an acquisition in progress is gone from its queue. */
	static final class NodeVanishedException extends IllegalStateException {

		NodeVanishedException(String node) {
			super("The lock node " + node + " vanished from its queue: deleted from outside, or its session ended");
		}

	}

}
