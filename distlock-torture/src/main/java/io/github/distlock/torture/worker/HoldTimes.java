package io.github.distlock.torture.worker;

import java.time.Duration;
import java.util.Random;
import java.util.concurrent.TimeUnit;

/**
 * How long a section holds its lock: mostly briefly, so the keys change hands often; sometimes for a while; and
 * now and then for longer than the lease, so that only the watchdog's renewals keep the lock.
 * <p>
 * A leader's term runs one section at a time across all workers, where a lock run has a section on every thread: so
 * that a fault finds the leader at work (a worker fault looks for a section with time left; a store fault strikes
 * whoever holds), the leader's sections outlive the lease two times in five, and are never a few milliseconds.
 */
public final class HoldTimes {

	/** The longest hold, as a multiple of the lease. */
	private static final double LONGEST = 1.8;

	private final long leaseNanos;

	/** In hundredths: below the first, a brief hold; below the second, a while; else longer than the lease. */
	private final int brief;

	private final int medium;

	private HoldTimes(Duration lease, int brief, int medium) {
		this.leaseNanos = lease.toNanos();
		this.brief = brief;
		this.medium = medium;
	}

	/** For sections under locks. */
	public static HoldTimes forLocks(Duration lease) {
		return new HoldTimes(lease, 80, 96);
	}

	/** For the leader's sections, one term each. */
	public static HoldTimes forLeader(Duration lease) {
		return new HoldTimes(lease, 0, 60);
	}

	public static Duration longest(Duration lease) {
		return Duration.ofNanos((long) (lease.toNanos() * LONGEST));
	}

	public long next(Random random) {
		int draw = random.nextInt(100);
		if (draw < this.brief) {
			return between(random, TimeUnit.MILLISECONDS.toNanos(1), TimeUnit.MILLISECONDS.toNanos(20));
		}
		if (draw < this.medium) {
			return between(random, TimeUnit.MILLISECONDS.toNanos(30), TimeUnit.MILLISECONDS.toNanos(300));
		}
		return between(random, (long) (this.leaseNanos * 1.2), (long) (this.leaseNanos * LONGEST));
	}

	private static long between(Random random, long from, long to) {
		return from + (long) (random.nextDouble() * (to - from));
	}

}
