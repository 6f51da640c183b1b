package io.github.distlock;

import io.github.distlock.engine.DisplayedKey;

/**
 * A lock that its holder no longer owns while the protected work may still be running.
 *
 * @param name the lock's namespace
 * @param key the lock's key
 * @param token the fencing token the holder was given
 * @param reason how the loss was found
 */
public record LostLock(String name, String key, long token, Reason reason) {

	/** As logs show it: the key with control characters escaped and a long key cut. */
	@Override
	public String toString() {
		return "LostLock[name=" + this.name + ", key=" + DisplayedKey.of(this.key) + ", token=" + this.token
				+ ", reason=" + this.reason + "]";
	}

	/** How a loss was found. */
	public enum Reason {

		/** The store holds no lock for this holder any more: it expired, was deleted or was taken by another. */
		NOT_OWNED,

		/** The store could not be reached until the lease ran out, so the lock must be taken as expired. */
		STORE_UNREACHABLE,

		/**
		 * The store refused to renew the lock (a missing permission, a full memory, a read-only replica) until the
		 * lease ran out, so the lock must be taken as expired.
		 */
		STORE_REFUSED,

		/** The lease ran out by design (no renewal, or the {@code maxLease} ceiling) before the work finished. */
		LEASE_EXPIRED

	}

}
