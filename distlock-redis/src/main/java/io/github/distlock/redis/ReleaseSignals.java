package io.github.distlock.redis;

import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;
import org.redisson.api.RTopic;
import org.redisson.api.RedissonClient;
import org.redisson.api.listener.MessageListener;
import org.redisson.client.RedisTimeoutException;
import org.redisson.client.codec.StringCodec;

/**
 * Wakes the local waiter of a lock when the lock is handed to it or released, on a single Redis or behind Sentinel.
 * <p>
 * Two channels serve the whole engine, whatever the number of waiting threads and keys. A release script announces
 * either a hand-over, {@code "<token> <holder prefix> <lock key>"}, on the channel of the new holder's engine alone,
 * or a plain release, {@code "0 - <lock key>"}, on the channel all engines share. Of an engine's threads, only the one
 * that passed the lock's {@link Turnstiles turnstile} waits in Redis, so each waited-for lock has one {@link Signal},
 * kept by its turnstile. A lost message only delays the waiter, whose sleep is bounded by the lock's remaining lease
 * and a poll interval.
 * <p>
 * Plain PUBLISH and SUBSCRIBE rather than sharded pub/sub here, although Redis 7 has it outside Cluster as well: with
 * one node there is nothing to spare by sharding, the two engine-wide channels cost one subscription for the life of
 * the engine where shard channels would cost one per waited-for lock, and Redis 6 keeps working.
 */
final class ReleaseSignals implements ReleaseAnnouncements {

	/**
	 * How often a subscription is tried as the engine starts. SUBSCRIBE's answer is bounded by the client's timeout;
	 * one that comes late (a starved machine, a server busy saving) is no reason to fail an application's start, so
	 * it is tried again, as Redisson tries a command again. A server that answers no subscription at all still fails
	 * the start, after this many timeouts.
	 */
	static final int SUBSCRIBE_ATTEMPTS = 3;

	private final String channel;

	private final RTopic releases;

	private final RTopic handOvers;

	private final int releaseListenerId;

	private final int handOverListenerId;

	/**
	 * @param channel the channel on which every engine hears plain releases
	 * @param engineId this engine's id: its hand-overs arrive on {@code <channel>:<engineId>}
	 * @param signalOfLock the signal of the thread waiting for a lock key, or null when none waits
	 */
	ReleaseSignals(RedissonClient client, String channel, String engineId, Function<String, Signal> signalOfLock) {
		this.channel = channel;
		this.releases = client.getTopic(channel, StringCodec.INSTANCE);
		this.handOvers = client.getTopic(channel + ":" + engineId, StringCodec.INSTANCE);
		MessageListener<String> listener = (ch, message) -> deliver(message, signalOfLock);
		this.releaseListenerId = subscribe(this.releases, listener);
		this.handOverListenerId = subscribe(this.handOvers, listener);
	}

	private static int subscribe(RTopic topic, MessageListener<String> listener) {
		for (int attempt = 1;; attempt++) {
			try {
				return topic.addListener(String.class, listener);
			}
			catch (RedisTimeoutException ex) {
				if (attempt == SUBSCRIBE_ATTEMPTS) {
					throw ex;
				}
			}
		}
	}

	/** The engine-wide channel, whatever the lock. */
	@Override
	public String channel(String lockKey) {
		return this.channel;
	}

	/** Nothing to do: the engine-wide channels are heard from the start. */
	@Override
	public @Nullable Subscription subscribe(String lockKey) {
		return null;
	}

	/**
	 * Hands an announcement to the signal of the lock it names, if a thread of this engine waits for that lock.
	 * @param message {@code "<token> <holder prefix> <lock key>"}, or {@code "0 - <lock key>"} for a plain release
	 */
	static void deliver(String message, Function<String, Signal> signalOfLock) {
		int first = message.indexOf(' ');
		int second = (first < 0) ? -1 : message.indexOf(' ', first + 1);
		if (second < 0) {
			return;
		}
		Signal signal = signalOfLock.apply(message.substring(second + 1));
		if (signal == null) {
			return;
		}
		long token = Long.parseLong(message.substring(0, first));
		if (token == 0) {
			signal.released();
		}
		else {
			signal.granted(message.substring(first + 1, second), token);
		}
	}

	@Override
	public void close() {
		this.handOvers.removeListener(this.handOverListenerId);
		this.releases.removeListener(this.releaseListenerId);
	}

	/**
	 * The announcements for one lock to the thread waiting for it: a count of plain releases, and a hand-over to that
	 * thread. The waiter reads the count before an attempt and waits for it to change, which closes the lost-wakeup
	 * gap.
	 */
	static final class Signal {

		private long releases;

		/** Holder prefix of the thread waiting now, set before its first attempt. */
		private @Nullable String expected;

		/** Token of the hand-over to the expected holder once announced, else 0. */
		private long token;

		/** Starts listening for a hand-over to this holder, before its first attempt so none can slip past. */
		synchronized void expect(String holderPrefix) {
			this.expected = holderPrefix;
			this.token = 0;
		}

		synchronized long releases() {
			return this.releases;
		}

		synchronized void released() {
			this.releases++;
			notifyAll();
		}

		synchronized void granted(String holderPrefix, long token) {
			// A hand-over to an earlier waiter that has given up is not this one's.
			if (holderPrefix.equals(this.expected)) {
				this.token = token;
				notifyAll();
			}
		}

		/**
		 * Waits until the lock is handed to the expected holder, a release after {@code seen} is announced, or the
		 * timeout passes.
		 * @return the token of the hand-over, or 0 when there was none
		 */
		synchronized long await(long seen, long timeoutNanos) throws InterruptedException {
			long deadline = System.nanoTime() + timeoutNanos;
			long remaining = timeoutNanos;
			while (this.token == 0 && this.releases == seen && remaining > 0) {
				TimeUnit.NANOSECONDS.timedWait(this, remaining);
				remaining = deadline - System.nanoTime();
			}
			return this.token;
		}

	}

}
