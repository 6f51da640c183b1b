package io.github.distlock.engine.support;

import io.github.distlock.LostLock;

/**
 * When the {@link LeaseWatchdog} must look at a lock, and what a lease that ran out means: read from the handle's
 * times on the holder's clock, which alone decides.
 */
final class RenewalTimes {

	private RenewalTimes() {
	}

	/** When a lock's renewal falls due: a third of its lease after its last renewal. */
	static long renewAt(LeasedLockHandle handle) {
		return handle.renewedAtNanos + handle.leaseNanos() / 3;
	}

	/** Whether a renewal may be sent now: not waiting to retry a failed one, and not yet at its longest lease. */
	static boolean renewable(LeasedLockHandle handle, long now) {
		return now - handle.retryAtNanos >= 0 && !handle.renewalEnded();
	}

	/**
	 * Whether a lock must be renewed on this tick. A sixth of the lease rather than a third, so that a wake-up a
	 * little early (the scheduler's granularity) still renews it instead of scheduling another tick.
	 */
	static boolean renewalDue(LeasedLockHandle handle, long now) {
		return now - (handle.renewedAtNanos + handle.leaseNanos() / 6) >= 0;
	}

	/** When the watchdog must next look at this lock: its renewal time, or its lease deadline. */
	static long nextAttention(LeasedLockHandle handle) {
		long deadline = handle.leaseDeadlineNanos();
		if (handle.renewalEnded()) {
			return deadline;
		}
		long renewAt = Math.max(renewAt(handle), handle.retryAtNanos);
		return (renewAt - deadline < 0) ? renewAt : deadline;
	}

	/**
	 * Why a lease ran out: by design (not to be renewed, or at {@code maxLease}); else nothing confirmed it in time,
	 * the store refusing the last renewal or not answering it, or the holder not reaching the store at all (its
	 * process paused, its CPU starved). Not {@code NOT_OWNED}, which would tell the engine the store no longer has
	 * the lock: on ZooKeeper and etcd it still does, and the engine must remove it.
	 */
	static LostLock.Reason runOutReason(LeasedLockHandle handle) {
		if (handle.renewalEnded()) {
			return LostLock.Reason.LEASE_EXPIRED;
		}
		return handle.renewalRefused ? LostLock.Reason.STORE_REFUSED : LostLock.Reason.STORE_UNREACHABLE;
	}

}
