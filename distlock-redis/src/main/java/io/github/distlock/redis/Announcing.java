package io.github.distlock.redis;

import java.util.function.Function;

import org.jspecify.annotations.Nullable;
import org.redisson.api.RedissonClient;

/** How an engine hears of releases: on Redis channels, or (a RedLock's part engine) not at all. */
@FunctionalInterface
interface Announcing {

	/** On the lock's shard channels on Redis Cluster, else on the prefix's channel: what an engine waits on. */
	Announcing ON_CHANNELS = (client, keyPrefix, engineId, signal) -> client.getConfig().isClusterConfig()
			? ShardChannelSubscriptions.of(client, engineId, signal)
			: new ReleaseSignals(client, keyPrefix + ":released", engineId, signal);

	/**
	 * For a {@link RedLockEngine}'s part engine, which only ever tries once and so never waits for an announcement:
	 * its releases still announce (to nobody of its own), and it subscribes to nothing, so a master that is down when
	 * the engine starts costs no subscription timeout.
	 */
	Announcing UNHEARD = (client, keyPrefix, engineId, signal) -> new UnheardAnnouncements(keyPrefix + ":released");

	ReleaseAnnouncements announcements(RedissonClient client, String keyPrefix, String engineId,
			Function<String, ReleaseSignals.Signal> signal);

	/** Announces on one channel, and subscribes to nothing. */
	record UnheardAnnouncements(String channel) implements ReleaseAnnouncements {

		@Override
		public String channel(String lockKey) {
			return this.channel;
		}

		@Override
		public ReleaseAnnouncements.@Nullable Subscription subscribe(String lockKey) {
			return null;
		}

		@Override
		public void close() {
		}

	}

}
