package io.github.distlock.redis;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import org.redisson.api.RTopic;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

/**
 * Wakes local waiters when a lock they wait for is handed to them or released.
 * <p>
 * Two channels serve the whole engine, whatever the number of waiting threads and keys. A release script announces
 * either a hand-over, {@code "<token> <holder prefix> <lock key>"}, on the channel of the new holder's engine alone,
 * where it wakes only the waiter it names, or a plain release, {@code "0 - <lock key>"}, on the channel all engines
 * share, which wakes every local waiter of that key to try again. Each
 * waited-for key has one {@link Signal} here, shared by its waiters and dropped when the last one leaves. A lost
 * message only delays a waiter, whose sleep is bounded by the lock's remaining lease and a poll interval.
 */
final class ReleaseSignals implements AutoCloseable {

	private final ConcurrentHashMap<String, Signal> signals = new ConcurrentHashMap<>();

	private final RTopic releases;

	private final RTopic handOvers;

	private final int releaseListenerId;

	private final int handOverListenerId;

	/**
	 * @param channel the channel on which every engine hears plain releases
	 * @param engineId this engine's id: its hand-overs arrive on {@code <channel>:<engineId>}
	 */
	ReleaseSignals(RedissonClient client, String channel, String engineId) {
		this.releases = client.getTopic(channel, StringCodec.INSTANCE);
		this.handOvers = client.getTopic(channel + ":" + engineId, StringCodec.INSTANCE);
		this.releaseListenerId = this.releases.addListener(String.class, (ch, message) -> received(message));
		this.handOverListenerId = this.handOvers.addListener(String.class, (ch, message) -> received(message));
	}

	/** Registers a waiter for a key, before its first attempt so that no announcement can slip past it. */
	Signal join(String lockKey, String holderPrefix) {
		Signal joined = this.signals.compute(lockKey, (k, signal) -> {
			Signal result = (signal != null) ? signal : new Signal();
			result.waiters++;
			return result;
		});
		joined.expect(holderPrefix);
		return joined;
	}

	void leave(String lockKey, Signal signal, String holderPrefix) {
		signal.forget(holderPrefix);
		this.signals.computeIfPresent(lockKey, (k, current) -> (--current.waiters == 0) ? null : current);
	}

	private void received(String message) {
		int first = message.indexOf(' ');
		int second = (first < 0) ? -1 : message.indexOf(' ', first + 1);
		if (second < 0) {
			return;
		}
		Signal signal = this.signals.get(message.substring(second + 1));
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
	 * The announcements for one key: a count of plain releases, and the hand-overs to local waiters. Waiters read
	 * the count before an attempt and wait for it to change, which closes the lost-wakeup gap.
	 */
	static final class Signal {

		/** Guarded by the map's compute for the key. */
		private int waiters;

		private long releases;

		/** Holder prefix of each local waiter, with the token of its hand-over once announced (else 0). */
		private final Map<String, Long> grants = new HashMap<>();

		synchronized long releases() {
			return this.releases;
		}

		private synchronized void expect(String holderPrefix) {
			this.grants.put(holderPrefix, 0L);
		}

		private synchronized void forget(String holderPrefix) {
			this.grants.remove(holderPrefix);
		}

		synchronized void released() {
			this.releases++;
			notifyAll();
		}

		synchronized void granted(String holderPrefix, long token) {
			if (this.grants.containsKey(holderPrefix)) {
				this.grants.put(holderPrefix, token);
				notifyAll();
			}
		}

		/**
		 * Waits until the lock is handed to this waiter, a release after {@code seen} is announced, or the timeout
		 * passes.
		 * @return the token of the hand-over, or 0 when there was none
		 */
		synchronized long await(String holderPrefix, long seen, long timeoutNanos) throws InterruptedException {
			long deadline = System.nanoTime() + timeoutNanos;
			long remaining = timeoutNanos;
			while (this.grants.getOrDefault(holderPrefix, 0L) == 0 && this.releases == seen && remaining > 0) {
				TimeUnit.NANOSECONDS.timedWait(this, remaining);
				remaining = deadline - System.nanoTime();
			}
			return this.grants.getOrDefault(holderPrefix, 0L);
		}

	}

}
