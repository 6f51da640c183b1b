package io.github.distlock.leader;

/**
 * Told when this instance becomes the leader of an election and when it stops being it. Each term is granted once and
 * revoked once, in that order.
 */
public interface LeadershipListener {

	/** This instance leads from now on; called on the election's own thread. */
	void granted(Leadership leadership);

	/**
	 * This instance no longer leads: called before the lock is released (so before another instance can be granted),
	 * or, for a lost lock, as the engine finds the loss, no later than the lease's end by this instance's clock.
	 */
	void revoked(Leadership leadership, Revocation reason);

	/** Why a term ended. */
	enum Revocation {

		/** The lock was lost: renewals failed until its lease ran out by this instance's clock, or it was taken. */
		LOST,

		/** The leader gave the term up ({@link LeaderElection#yieldLeadership()}). */
		YIELDED,

		/** The election was closed ({@link LeaderElection#close()}), as when the application stops. */
		SHUT_DOWN

	}

}
