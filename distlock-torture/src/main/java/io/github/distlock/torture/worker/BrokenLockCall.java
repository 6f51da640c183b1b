package io.github.distlock.torture.worker;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import io.github.distlock.LockAcquisitionException;
import io.github.distlock.torture.check.RunRecordsReader;
import io.github.distlock.test.RespClient;

/**
 * The negative control: a lock as it is often written by hand, a GET to see that the key is free followed by a SET,
 * with no atomicity between them, no renewal and a release that deletes whoever's lock is there. Every thread has
 * its own connection to the lock server. The checker must find what this lock lets through.
 */
final class BrokenLockCall implements LockedCall {

	private final SectionBody body;

	private final int redisPort;

	private final Duration lease;

	private final Duration waitTime;

	private final ThreadLocal<RespClient> clients;

	BrokenLockCall(SectionBody body, int redisPort, Duration lease, Duration waitTime) {
		this.body = body;
		this.redisPort = redisPort;
		this.lease = lease;
		this.waitTime = waitTime;
		this.clients = ThreadLocal.withInitial(() -> new RespClient("127.0.0.1", this.redisPort));
	}

	@Override
	public void run(Section section) {
		RespClient redis = this.clients.get();
		String redisKey = RunRecordsReader.redisKeyOf(section.getKey());
		long deadline = System.nanoTime() + this.waitTime.toNanos();
		while (redis.get(redisKey) != null) {
			if (System.nanoTime() - deadline > 0) {
				throw new LockAcquisitionException("torture", section.getKey(), this.waitTime, null);
			}
			pause(TimeUnit.MILLISECONDS.toNanos(2));
		}
		// The flaw, widened a little so the control fails reliably: others find the key free in this gap too.
		pause(ThreadLocalRandom.current().nextLong(TimeUnit.MILLISECONDS.toNanos(2)));
		long token = serverMicros(redis);
		redis.call("SET", redisKey, section.writer() + "|" + token, "PX", this.lease.toMillis());
		try {
			this.body.run(section, token);
		}
		finally {
			redis.call("DEL", redisKey);
		}
	}

	@SuppressWarnings("unchecked")
	private static long serverMicros(RespClient redis) {
		List<String> time = (List<String>) redis.call("TIME");
		return Long.parseLong(time.get(0)) * 1_000_000 + Long.parseLong(time.get(1));
	}

	private static void pause(long nanos) {
		try {
			TimeUnit.NANOSECONDS.sleep(nanos);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

}
