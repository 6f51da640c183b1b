package io.github.distlock.torture.worker;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import io.github.distlock.LockAcquisitionException;
import io.github.distlock.LostLock;
import io.github.distlock.torture.check.RunRecordsReader;
import io.github.distlock.fixtures.redis.RespClient;

/**
 * The negative control: a lock as it is often written by hand, a GET to see that the key is free followed by a SET,
 * with no atomicity between them, no renewal and a release that deletes whoever's lock is there. Every thread has
 * its own connection to the lock server. The checker must find what this lock lets through.
 * <p>
 * It has a broken loss detector too, a timer that declares the lock lost once a section has run for a twentieth of
 * the lease, without asking the store: false alarms the checker must catch. Only sections that end within the lease
 * get one; those that outlive it lose the lock for real (nothing renews it), and the overlaps they cause must stay
 * unnoticed for the checker to catch as such.
 */
final class BrokenLockCall implements LockedCall {

	private final SectionBody body;

	private final WorkerHistory history;

	private final ScheduledExecutorService lossTimer = Executors.newSingleThreadScheduledExecutor((runnable) -> {
		Thread thread = new Thread(runnable, "broken-loss-timer");
		thread.setDaemon(true);
		return thread;
	});

	private final int redisPort;

	private final Duration lease;

	private final Duration waitTime;

	private final ThreadLocal<RespClient> clients;

	BrokenLockCall(SectionBody body, WorkerHistory history, int redisPort, Duration lease, Duration waitTime) {
		this.body = body;
		this.history = history;
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
		ScheduledFuture<?> falseAlarm = (section.holdNanos < this.lease.toNanos()) ? this.lossTimer.schedule(
				() -> this.history.lostReported(new LostLock("torture", section.getKey(), token,
						LostLock.Reason.STORE_UNREACHABLE)),
				this.lease.toNanos() / 20, TimeUnit.NANOSECONDS) : null;
		try {
			this.body.run(section, token);
		}
		finally {
			if (falseAlarm != null) {
				falseAlarm.cancel(false);
			}
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
