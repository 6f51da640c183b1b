package io.github.distlock.redis;

import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

import org.redisson.api.RShardedTopic;
import org.redisson.api.RedissonClient;
import org.redisson.api.listener.MessageListener;
import org.redisson.client.codec.StringCodec;

/**
 * Wakes the local waiter of a lock on Redis Cluster, through the lock's own shard channels (sharded pub/sub, Redis
 * 7): an announcement reaches the nodes of the lock's slot alone, where PUBLISH would be carried over the cluster bus
 * to every node.
 * <p>
 * A lock stored under {@code K} is announced on {@code K:released} (plain releases, for every engine waiting) and
 * {@code K:released:<engine id>} (hand-overs to one engine), with the messages {@link ReleaseSignals} describes. Both
 * names carry the lock's hash tag, so they lie in the lock's slot, which is what lets the release script announce on
 * them. This engine subscribes to both while its threads wait for the lock, not for its whole life: an engine that
 * holds many locks in turn would otherwise keep a subscription for each.
 * <p>
 * The engine uses this only when its client is not Redisson's own implementation ({@link ShardChannelSubscriptions}
 * opens connections of its own otherwise). Redisson's sharded topics follow a failover and a cut connection, not a
 * slot that moved to another master: Redis drops the slot's subscriptions, Redisson 4.7 forgets them, and a later
 * attempt to subscribe to such a channel times out. A subscription Redisson forgot counts as {@linkplain
 * Subscription#dropped() dropped}, and waiters poll while they cannot subscribe.
 */
final class ShardedReleaseSignals implements ReleaseAnnouncements {

	private final RedissonClient client;

	private final String engineId;

	private final MessageListener<String> listener;

	private final Set<ShardSubscription> open = ConcurrentHashMap.newKeySet();

	/**
	 * @param engineId this engine's id: its hand-overs arrive on {@code <channel>:<engineId>}
	 * @param signalOfLock the signal of the thread waiting for a lock key, or null when none waits
	 */
	ShardedReleaseSignals(RedissonClient client, String engineId, Function<String, ReleaseSignals.Signal> signalOfLock) {
		this.client = client;
		this.engineId = engineId;
		this.listener = (channel, message) -> ReleaseSignals.deliver(message, signalOfLock);
	}

	/** The lock's own channel: its key and {@code :released}, in the lock's hash slot. */
	@Override
	public String channel(String lockKey) {
		return releasesChannel(lockKey);
	}

	/** The channel of a lock's plain releases, in the lock's hash slot; hand-overs go to it and the engine's id. */
	static String releasesChannel(String lockKey) {
		return lockKey + ":released";
	}

	@Override
	public Subscription subscribe(String lockKey) {
		String channel = channel(lockKey);
		ShardSubscription subscription = new ShardSubscription(
				this.client.getShardedTopic(channel, StringCodec.INSTANCE),
				this.client.getShardedTopic(channel + ":" + this.engineId, StringCodec.INSTANCE));
		this.open.add(subscription);
		return subscription;
	}

	/** Closes the subscriptions still open: those of threads that were waiting when the engine closed. */
	@Override
	public void close() {
		this.open.forEach(ShardSubscription::close);
	}

	/** One lock's two shard channels, subscribed together. */
	private final class ShardSubscription implements Subscription {

		private final RShardedTopic releases;

		private final RShardedTopic handOvers;

		private final CompletableFuture<Integer> releaseListener;

		private final CompletableFuture<Integer> handOverListener;

		private final CompletableFuture<Void> ready;

		ShardSubscription(RShardedTopic releases, RShardedTopic handOvers) {
			this.releases = releases;
			this.handOvers = handOvers;
			this.releaseListener = releases.addListenerAsync(String.class, ShardedReleaseSignals.this.listener)
				.toCompletableFuture();
			this.handOverListener = handOvers.addListenerAsync(String.class, ShardedReleaseSignals.this.listener)
				.toCompletableFuture();
			this.ready = CompletableFuture.allOf(this.releaseListener, this.handOverListener);
		}

		@Override
		public CompletableFuture<Void> ready() {
			return this.ready;
		}

		/** Redisson keeps a channel's listeners while it is subscribed, and forgets them when the server drops it. */
		@Override
		public boolean dropped() {
			return this.ready.isDone() && !this.ready.isCompletedExceptionally()
					&& (this.releases.countListeners() == 0 || this.handOvers.countListeners() == 0);
		}

		@Override
		public void close() {
			if (!ShardedReleaseSignals.this.open.remove(this)) {
				return;
			}
			// A subscription still on its way is removed once confirmed; one that failed has nothing to remove.
			this.releaseListener.thenAccept(this.releases::removeListenerAsync);
			this.handOverListener.thenAccept(this.handOvers::removeListenerAsync);
		}

	}

}
