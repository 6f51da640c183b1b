package io.github.distlock.redis;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.client.ChannelName;
import org.redisson.client.RedisClient;
import org.redisson.client.RedisPubSubConnection;
import org.redisson.client.RedisPubSubListener;
import org.redisson.client.codec.StringCodec;
import org.redisson.client.protocol.pubsub.PubSubType;
import org.redisson.connection.ConnectionManager;
import org.redisson.connection.MasterSlaveEntry;

/**
 * Wakes the local waiter of a lock on Redis Cluster through the lock's own shard channels, as
 * {@link ShardedReleaseSignals} describes, over pub/sub connections of the engine's own: one per master, opened
 * through Redisson's client for that master (so it authenticates, uses TLS and names itself as the client is
 * configured), never through Redisson's subscription service.
 * <p>
 * Why not Redisson's: when a slot moves to another master, Redis unsubscribes the slot's shard channels on the old
 * one, and Redisson 4.7 forgets the subscription; it mostly sends {@code SUNSUBSCRIBE} there and waits for an answer
 * that never comes, holding one of the 50 locks its subscriptions share, so that no channel whose name falls on that
 * lock, of any lock or slot, can be subscribed by the client again (mostly: not every time). Here a subscription whose slot the client no longer routes to its master is
 * {@linkplain Subscription#dropped() dropped} (Redisson does not pass the server's own {@code SUNSUBSCRIBE} on, so
 * the client's topology scan is what tells), and the next waiter subscribes again on the master that serves the slot
 * now.
 * <p>
 * A connection that closes (a kill, a failover, a network cut) drops every subscription it carried and is not
 * reconnected: the next waiter opens a new one.
 */
final class ShardChannelSubscriptions implements ReleaseAnnouncements {

	private static final Log logger = LogFactory.getLog(ShardChannelSubscriptions.class);

	private final ConnectionManager connectionManager;

	private final String engineId;

	private final Function<String, ReleaseSignals.Signal> signalOfLock;

	private final ConcurrentMap<RedisClient, MasterChannels> masters = new ConcurrentHashMap<>();

	private volatile boolean closed;

	private ShardChannelSubscriptions(ConnectionManager connectionManager, String engineId,
			Function<String, ReleaseSignals.Signal> signalOfLock) {
		this.connectionManager = connectionManager;
		this.engineId = engineId;
		this.signalOfLock = signalOfLock;
	}

	/**
	 * The engine's own shard subscriptions on a Redisson client; Redisson's sharded topics ({@link ShardedReleaseSignals})
	 * for any other implementation, or a Redisson version without what these use.
	 */
	static ReleaseAnnouncements of(RedissonClient client, String engineId,
			Function<String, ReleaseSignals.Signal> signalOfLock) {
		if (client instanceof Redisson redisson) {
			try {
				return new ShardChannelSubscriptions(redisson.getCommandExecutor().getConnectionManager(), engineId,
						signalOfLock);
			}
			catch (LinkageError ex) {
				logger.warn("distlock cannot open its own shard subscriptions with this Redisson version (" + ex
						+ "); it uses Redisson's sharded topics, which do not follow a slot that moved");
			}
		}
		return new ShardedReleaseSignals(client, engineId, signalOfLock);
	}

	@Override
	public String channel(String lockKey) {
		return ShardedReleaseSignals.releasesChannel(lockKey);
	}

	@Override
	public Subscription subscribe(String lockKey) {
		int slot = HashSlot.of(lockKey);
		String releases = channel(lockKey);
		String handOvers = releases + ":" + this.engineId;
		MasterChannels master;
		try {
			MasterSlaveEntry entry = this.connectionManager.getWriteEntry(slot);
			if (entry == null || this.closed) {
				return LockSubscription.failed(new IllegalStateException("No master known for " + lockKey));
			}
			master = this.masters.computeIfAbsent(entry.getClient(), MasterChannels::new);
		}
		catch (RuntimeException ex) {
			return LockSubscription.failed(ex);
		}
		return master.subscribe(lockKey, slot, releases, handOvers);
	}

	private boolean isMaster(RedisClient client) {
		for (MasterSlaveEntry entry : this.connectionManager.getEntrySet()) {
			if (entry.getClient() == client) {
				return true;
			}
		}
		return false;
	}

	/** Closes every connection: subscriptions still open hear nothing more. */
	@Override
	public void close() {
		this.closed = true;
		this.masters.values().forEach(MasterChannels::close);
		this.masters.clear();
	}

	/** Whether the client still routes the slot to this master: it learns a moved slot at its next topology scan. */
	private boolean serves(RedisClient master, int slot) {
		MasterSlaveEntry entry = this.connectionManager.getWriteEntry(slot);
		return entry != null && entry.getClient() == master;
	}

	/** The channels of one lock, subscribed together on one master. */
	private static final class LockSubscription implements Subscription {

		private final @Nullable MasterChannels master;

		private final int slot;

		private final MasterChannels.Channel[] channels;

		private final CompletableFuture<Void> ready;

		private boolean closed;

		private LockSubscription(@Nullable MasterChannels master, int slot, MasterChannels.Channel[] channels,
				CompletableFuture<Void> ready) {
			this.master = master;
			this.slot = slot;
			this.channels = channels;
			this.ready = ready;
		}

		static LockSubscription failed(Throwable cause) {
			return new LockSubscription(null, -1, new MasterChannels.Channel[0], CompletableFuture.failedFuture(cause));
		}

		@Override
		public CompletableFuture<Void> ready() {
			return this.ready;
		}

		/**
		 * Dropped when a channel was (its connection closed, the server unsubscribed it), or when the slot is no
		 * longer this master's: Redis unsubscribes a moved slot's channels, and Redisson does not pass that on.
		 */
		@Override
		public boolean dropped() {
			for (MasterChannels.Channel channel : this.channels) {
				if (channel.dropped) {
					return true;
				}
			}
			return this.master != null && this.ready.isDone() && !this.master.serves(this.slot);
		}

		@Override
		public void close() {
			if (this.master != null) {
				this.master.release(this);
			}
		}

	}

	/**
	 * One master's pub/sub connection and the channels subscribed on it, each counted by the lock subscriptions that
	 * use it: a channel is subscribed by the first and unsubscribed after the last.
	 */
	private final class MasterChannels {

		private final RedisClient client;

		/** Guarded by this. */
		private final Map<String, Channel> channels = new HashMap<>();

		/** Guarded by this; null until the first subscription, and again once it closed. */
		private @Nullable PubSubSteps connection;

		/** Guarded by this: closed for good (a master no more, or the engine closed). */
		private boolean retired;

		MasterChannels(RedisClient client) {
			this.client = client;
		}

		synchronized LockSubscription subscribe(String lockKey, int slot, String... names) {
			if (this.retired) {
				// Taken from the map just before it was retired: the next waiter finds the master of now.
				return LockSubscription.failed(new IllegalStateException(this.client + " is no longer a master"));
			}
			PubSubSteps connected = connection();
			Channel[] subscribed = new Channel[names.length];
			CompletableFuture<?>[] confirmations = new CompletableFuture<?>[names.length];
			for (int i = 0; i < names.length; i++) {
				Channel channel = this.channels.get(names[i]);
				if (channel == null || channel.dropped || channel.confirmed.isCompletedExceptionally()) {
					if (channel != null) {
						channel.forget();
					}
					channel = new Channel(lockKey, slot, names[i], connected);
					this.channels.put(names[i], channel);
				}
				channel.users++;
				subscribed[i] = channel;
				confirmations[i] = channel.confirmed;
			}
			// Refused, unreachable or unanswered, a channel fails its subscription: the turnstile keeps the failed
			// subscription a while, then the next waiter subscribes again.
			return new LockSubscription(this, slot, subscribed, CompletableFuture.allOf(confirmations));
		}

		boolean serves(int slot) {
			return ShardChannelSubscriptions.this.serves(this.client, slot);
		}

		synchronized void release(LockSubscription subscription) {
			if (subscription.closed) {
				return;
			}
			subscription.closed = true;
			for (Channel channel : subscription.channels) {
				if (--channel.users == 0 && this.channels.get(channel.name) == channel) {
					this.channels.remove(channel.name);
					if (channel.dropped || !serves(channel.slot)) {
						// Nothing left to unsubscribe, and a master that no longer serves the slot would only refuse.
						channel.forget();
					}
					else {
						channel.unsubscribe();
					}
				}
			}
			if (this.channels.isEmpty() && !isMaster(this.client)) {
				// A master no more (a failover): its connection is of no further use.
				ShardChannelSubscriptions.this.masters.remove(this.client, this);
				close();
			}
		}

		/** The connection, opened on first use and again after it closed. */
		private PubSubSteps connection() {
			if (this.connection == null || this.connection.opening.isCompletedExceptionally()) {
				PubSubSteps opening = new PubSubSteps(this.client.connectPubSubAsync().toCompletableFuture());
				this.connection = opening;
				opening.then((opened) -> opened.getChannel().closeFuture().addListener((f) -> closed(opening)));
			}
			return this.connection;
		}

		/** A closed connection drops every channel it carried; the next subscription opens a new one. */
		private synchronized void closed(PubSubSteps which) {
			if (this.connection != which) {
				return;
			}
			this.connection = null;
			this.channels.values().forEach(Channel::drop);
			this.channels.clear();
			// Not reconnected by Redisson's watchdog: this connection's channels are not Redisson's to restore.
			which.then(RedisPubSubConnection::closeAsync);
		}

		synchronized void close() {
			this.retired = true;
			this.channels.values().forEach((channel) -> channel.dropped = true);
			this.channels.clear();
			if (this.connection != null) {
				this.connection.then(RedisPubSubConnection::closeAsync);
				this.connection = null;
			}
		}

		/** One shard channel on this master's connection. */
		private final class Channel implements RedisPubSubListener<Object> {

			final String lockKey;

			final int slot;

			final String name;

			final ChannelName channelName;

			final PubSubSteps connection;

			/**
			 * Completed by the server's confirmation, failed by its refusal, a connection that could not be opened, or
			 * no answer within a command timeout.
			 */
			final CompletableFuture<Void> confirmed = new CompletableFuture<>();

			/** Guarded by the enclosing MasterChannels. */
			int users;

			/** Its connection closed: hears nothing more. */
			volatile boolean dropped;

			Channel(String lockKey, int slot, String name, PubSubSteps connection) {
				this.lockKey = lockKey;
				this.slot = slot;
				this.name = name;
				this.channelName = new ChannelName(name);
				this.connection = connection;
				this.confirmed.orTimeout(MasterChannels.this.client.getConfig().getCommandTimeout(),
						TimeUnit.MILLISECONDS);
				connection.whenOpened((opened, failure) -> {
					if (failure != null) {
						this.confirmed.completeExceptionally(failure);
						return;
					}
					opened.addListener(this.channelName, this);
					CompletableFuture<Void> sent = new CompletableFuture<>();
					// An error answer (MOVED while the client's slot map is behind, NOPERM) fails the command.
					sent.whenComplete((ok, refused) -> {
						if (refused != null) {
							this.confirmed.completeExceptionally(refused);
						}
					});
					opened.ssubscribe(sent, StringCodec.INSTANCE, this.channelName);
				});
			}

			/** Stops hearing a channel that was dropped, or is being replaced, without telling the server. */
			void forget() {
				this.connection.then((opened) -> opened.removeListener(this.channelName, this));
			}

			void unsubscribe() {
				this.connection.then((opened) -> {
					if (opened.isActive()) {
						opened.unsubscribe(PubSubType.SUNSUBSCRIBE, this.channelName);
					}
					opened.removeListener(this.channelName, this);
				});
			}

			@Override
			public void onMessage(CharSequence channel, Object message) {
				ReleaseSignals.deliver(String.valueOf(message), ShardChannelSubscriptions.this.signalOfLock);
			}

			@Override
			public void onStatus(PubSubType type, CharSequence channel) {
				if (type == PubSubType.SSUBSCRIBE) {
					this.confirmed.complete(null);
				}
			}

			/**
			 * Hears nothing more: wakes the lock's waiter, if any, so that it looks at the lock and subscribes again
			 * now rather than at its next poll.
			 */
			void drop() {
				this.dropped = true;
				ReleaseSignals.Signal signal = ShardChannelSubscriptions.this.signalOfLock.apply(this.lockKey);
				if (signal != null) {
					signal.released();
				}
			}

		}

	}

}
