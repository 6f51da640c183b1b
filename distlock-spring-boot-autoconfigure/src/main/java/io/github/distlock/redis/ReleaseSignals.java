package io.github.distlock.redis;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import org.redisson.api.RTopic;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

/**
 * Wakes local waiters when a lock they wait for is released anywhere.
 * <p>
 * One subscription serves the whole engine, whatever the number of waiting threads and keys: releases are
 * announced on one channel with the lock key as the message, and each waited-for key has one {@link Signal} here,
 * shared by its waiters and dropped when the last one leaves. A lost message only delays a waiter, whose wait is
 * bounded by the lock's remaining lease and a poll interval.
 */
final class ReleaseSignals implements AutoCloseable {

	private final ConcurrentHashMap<String, Signal> signals = new ConcurrentHashMap<>();

	private final RTopic topic;

	private final int listenerId;

	ReleaseSignals(RedissonClient client, String channel) {
		this.topic = client.getTopic(channel, StringCodec.INSTANCE);
		this.listenerId = this.topic.addListener(String.class, (ch, lockKey) -> released(lockKey));
	}

	/** Registers interest in a key; pair with {@link #leave}. */
	Signal join(String lockKey) {
		return this.signals.compute(lockKey, (k, signal) -> {
			Signal joined = (signal != null) ? signal : new Signal();
			joined.waiters++;
			return joined;
		});
	}

	void leave(String lockKey) {
		this.signals.computeIfPresent(lockKey, (k, signal) -> (--signal.waiters == 0) ? null : signal);
	}

	void released(String lockKey) {
		Signal signal = this.signals.get(lockKey);
		if (signal != null) {
			signal.fire();
		}
	}

	/** How many keys have waiters in this engine now. */
	int waitedKeys() {
		return this.signals.size();
	}

	@Override
	public void close() {
		this.topic.removeListener(this.listenerId);
	}

	/** A release counter that waiters block on; reading it before an attempt closes the lost-wakeup gap. */
	static final class Signal {

		/** Guarded by the map's compute for the key. */
		private int waiters;

		private long releases;

		synchronized long releases() {
			return this.releases;
		}

		synchronized void fire() {
			this.releases++;
			notifyAll();
		}

		/**
		 * Waits until a release after {@code seen} is announced, or the timeout passes.
		 */
		synchronized void await(long seen, long timeoutNanos) throws InterruptedException {
			long deadline = System.nanoTime() + timeoutNanos;
			long remaining = timeoutNanos;
			while (this.releases == seen && remaining > 0) {
				TimeUnit.NANOSECONDS.timedWait(this, remaining);
				remaining = deadline - System.nanoTime();
			}
		}

	}

}
