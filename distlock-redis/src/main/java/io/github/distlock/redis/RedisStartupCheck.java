package io.github.distlock.redis;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.redisson.Redisson;
import org.redisson.api.RScript.ReturnType;
import org.redisson.api.RTopic;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.redisson.config.BaseConfig;
import org.redisson.config.BaseMasterSlaveServersConfig;
import org.redisson.config.Config;
import org.redisson.config.SingleServerConfig;

import io.github.distlock.LockStoreConnectionException;

/**
 * Start-up checks that turn a misconfigured Redis connection into one clear {@link LockStoreConnectionException}
 * within about one connect timeout, instead of a client that retries for many seconds and then reports the cause
 * several levels deep.
 * <ul>
 * <li>{@link #connect(Config)}, before a client is built from a configuration: one connection attempt, without
 * retries, with the configuration's credentials and TLS settings.</li>
 * <li>{@link #verify(RedissonClient, String, Duration)}, on any client, before the engine uses it: a script on a key
 * inside the prefix, and a publication and a subscription on the prefix's channels, each bounded.</li>
 * </ul>
 * On Redis Cluster the publication and subscription are sharded ({@code SPUBLISH}, {@code SSUBSCRIBE}), as the
 * engine's announcements are there: a Redis older than 7 fails the check, naming the command it lacks.
 */
public final class RedisStartupCheck {

	/** Beyond the connect timeout, for building the client itself (a cold JVM loads Netty and Redisson first). */
	private static final long GRACE_MILLIS = 500;

	/** Redisson's own default command timeout, for the configurations whose settings are not read. */
	private static final int DEFAULT_TIMEOUT_MILLIS = 3000;

	private RedisStartupCheck() {
	}

	/**
	 * Connects once with a copy of the configuration, retrying nothing and giving up after its connect timeout
	 * (and half a second to build the client), then closes that connection. Replicated and master/replica
	 * configurations are not checked.
	 * @throws LockStoreConnectionException naming the cause when the connection cannot be set up
	 */
	public static void connect(Config config) {
		connect(config, ConnectionSettingNames.SPRING_DATA_REDIS);
	}

	/**
	 * As {@link #connect(Config)}, its advice naming the settings the application configured the connection with.
	 */
	public static void connect(Config config, ConnectionSettingNames settings) {
		Config probe = new Config(config);
		// A lazy client would connect at its first command: the probe must connect now.
		probe.setLazyInitialization(false);
		RedisTarget target = RedisTarget.of(probe);
		BaseConfig<?> server = (target != null) ? target.server() : null;
		if (target == null || server == null) {
			return;
		}
		int connectTimeout = server.getConnectTimeout();
		// One attempt, bounded by the connect timeout: Redisson's start-up would try again retryAttempts times,
		// retryInterval apart, each within its own timeouts, before it reports anything.
		server.setRetryAttempts(0);
		server.setTimeout(connectTimeout);
		server.setSubscriptionTimeout(connectTimeout);
		if (server instanceof SingleServerConfig single) {
			single.setConnectionMinimumIdleSize(1).setSubscriptionConnectionMinimumIdleSize(1);
		}
		else if (server instanceof BaseMasterSlaveServersConfig<?> masterSlave) {
			masterSlave.setMasterConnectionMinimumIdleSize(1)
				.setSlaveConnectionMinimumIdleSize(1)
				.setSubscriptionConnectionMinimumIdleSize(1);
		}
		probe.setThreads(1);
		probe.setNettyThreads(2);
		// Some failures Redisson reports only after several of its own timeouts (a TLS handshake with a plain
		// server); the check gives up at the connect timeout, on a thread of its own.
		CompletableFuture<RedissonClient> connecting = new CompletableFuture<>();
		Thread connector = new Thread(() -> {
			try {
				connecting.complete(Redisson.create(probe));
			}
			catch (Throwable ex) {
				connecting.completeExceptionally(ex);
			}
		}, "distlock-startup-check");
		connector.setDaemon(true);
		connector.start();
		long limit = connectTimeout + GRACE_MILLIS;
		RedissonClient client;
		try {
			client = connecting.get(limit, TimeUnit.MILLISECONDS);
		}
		catch (ExecutionException ex) {
			throw RedisConnectionDiagnosis.diagnose(Objects.requireNonNullElse(ex.getCause(), ex), target, connectTimeout, settings);
		}
		catch (TimeoutException ex) {
			connecting.thenAccept(RedisStartupCheck::close);
			throw RedisConnectionDiagnosis.diagnose(ex, target, connectTimeout, settings);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while connecting to " + target.description(), ex);
		}
		close(client);
	}

	private static void close(RedissonClient client) {
		client.shutdown(0, 2, TimeUnit.SECONDS);
	}

	/** As {@link #verify(RedissonClient, String, Duration)}, each step within the client's own command timeout. */
	public static void verify(RedissonClient client, String keyPrefix) {
		RedisTarget target = RedisTarget.of(client.getConfig());
		int timeout = (target != null && target.server() != null) ? target.server().getTimeout()
				: DEFAULT_TIMEOUT_MILLIS;
		verify(client, keyPrefix, Duration.ofMillis(timeout));
	}

	/**
	 * Checks that the client can do what the engine needs: run a script that declares a key inside the prefix,
	 * publish on and subscribe to the prefix's channels. Each step waits at most {@code timeout}.
	 * @throws LockStoreConnectionException naming the cause (a missing permission, a silent server) when it cannot
	 */
	public static void verify(RedissonClient client, String keyPrefix, Duration timeout) {
		Config config = client.getConfig();
		RedisTarget target = RedisTarget.orUnknown(config);
		RedisLockKeys keys = new RedisLockKeys(keyPrefix);
		boolean sharded = config.isClusterConfig();
		// Channels no engine listens on: the publication tests the permission and wakes nobody. On Cluster, shard
		// channels with a hash tag of their own, as each lock's are.
		String published = sharded ? keyPrefix + ":{startup-check}:released" : keyPrefix + ":released:startup-check";
		String subscribed = sharded ? keyPrefix + ":{startup-check}:released:check" : keyPrefix + ":released";
		try {
			LockScripts.forOneCall(client, timeout).run(LockScripts.PING, ReturnType.LONG, List.of(keys.healthKey()));
			topic(client, published, sharded).publish("");
		}
		catch (RuntimeException ex) {
			// Connected already (by the application's settings): what fails now is a permission or a silent server.
			throw RedisConnectionDiagnosis.diagnose(ex, target, timeout.toMillis(),
					ConnectionSettingNames.SPRING_DATA_REDIS);
		}
		subscribe(topic(client, subscribed, sharded), subscribed, sharded ? "SSUBSCRIBE" : "SUBSCRIBE", keyPrefix,
				target, timeout);
	}

	private static RTopic topic(RedissonClient client, String channel, boolean sharded) {
		return sharded ? client.getShardedTopic(channel, StringCodec.INSTANCE)
				: client.getTopic(channel, StringCodec.INSTANCE);
	}

	/**
	 * Redis answers a SUBSCRIBE it refuses (a channel outside the user's channel patterns, or no permission for the
	 * command) without a confirmation that the client waits for; a subscription left unconfirmed is that refusal.
	 * @param command the subscribing command, for the message
	 */
	private static void subscribe(RTopic topic, String channel, String command, String keyPrefix, RedisTarget target,
			Duration timeout) {
		CompletableFuture<Integer> subscription = topic.addListenerAsync(String.class, (ch, message) -> {
		}).toCompletableFuture();
		try {
			int listener = subscription.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
			topic.removeListener(listener);
		}
		catch (TimeoutException ex) {
			subscription.thenAccept(topic::removeListener);
			String store = target.description();
			throw new LockStoreConnectionException(store, "Redis did not confirm the subscription of "
					+ target.user() + " to channel '" + channel + "' within " + timeout.toMillis() + " ms at " + store
					+ "; the usual cause is an ACL without the channel pattern or the " + command + " command",
					"Grant the channel pattern and commands listed in distlock's docs/operations.md, section \"Least-privilege "
							+ "Redis user\" (for this prefix, &" + keyPrefix + ":*).",
					ex);
		}
		catch (ExecutionException ex) {
			throw RedisConnectionDiagnosis.diagnose(Objects.requireNonNullElse(ex.getCause(), ex), target, timeout.toMillis(),
					ConnectionSettingNames.SPRING_DATA_REDIS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while checking the Redis subscription", ex);
		}
	}

}
