package io.github.distlock.redis;

import java.util.concurrent.CompletableFuture;

import org.jspecify.annotations.Nullable;

/**
 * How an engine hears that a lock it waits for was released or handed to it: the channel its scripts announce a
 * lock's releases on, and what a waiter must do before it can hear them.
 * <p>
 * On a single Redis or behind Sentinel ({@link ReleaseSignals}), two engine-wide channels carry every announcement,
 * subscribed once when the engine starts. On Redis Cluster ({@link ShardChannelSubscriptions}), each lock has shard
 * channels of its own, in its hash slot, subscribed while this engine's threads wait for that lock.
 */
interface ReleaseAnnouncements extends AutoCloseable {

	/**
	 * The channel the scripts announce the releases of the lock stored under {@code lockKey} on; hand-overs to an
	 * engine go to {@code <channel>:<engine id>}.
	 */
	String channel(String lockKey);

	/**
	 * Starts hearing the announcements about one lock.
	 * @return the subscription, to close once no thread of this engine waits for the lock; null when nothing needs
	 * to be done (the engine-wide channels are heard already)
	 */
	@Nullable Subscription subscribe(String lockKey);

	@Override
	void close();

	/** This engine's subscription to the announcements about one lock. */
	interface Subscription {

		/**
		 * Completes once the server has confirmed the subscription: from then on no announcement is missed, unless
		 * it is {@link #dropped()}.
		 */
		CompletableFuture<Void> ready();

		/**
		 * Whether the subscription was confirmed and has since been dropped by the client, which will not make it
		 * again by itself: it hears nothing more.
		 */
		boolean dropped();

		/** Stops hearing the lock's announcements, without waiting for the server. */
		void close();

	}

}
