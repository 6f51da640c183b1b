package io.github.distlock.torture.worker;

import java.time.Duration;
import java.util.Random;
import java.util.concurrent.TimeUnit;

/**
 * How long a section holds its lock: mostly briefly, so the keys change hands often; sometimes for a while; and
 * now and then for longer than the lease, so that only the watchdog's renewals keep the lock.
 */
public final class HoldTimes {

	/** The longest hold, as a multiple of the lease. */
	private static final double LONGEST = 1.8;

	private final long leaseNanos;

	public HoldTimes(Duration lease) {
		this.leaseNanos = lease.toNanos();
	}

	public static Duration longest(Duration lease) {
		return Duration.ofNanos((long) (lease.toNanos() * LONGEST));
	}

	public long next(Random random) {
		int draw = random.nextInt(100);
		if (draw < 80) {
			return between(random, TimeUnit.MILLISECONDS.toNanos(1), TimeUnit.MILLISECONDS.toNanos(20));
		}
		if (draw < 96) {
			return between(random, TimeUnit.MILLISECONDS.toNanos(30), TimeUnit.MILLISECONDS.toNanos(300));
		}
		return between(random, (long) (this.leaseNanos * 1.2), (long) (this.leaseNanos * LONGEST));
	}

	private static long between(Random random, long from, long to) {
		return from + (long) (random.nextDouble() * (to - from));
	}

}
