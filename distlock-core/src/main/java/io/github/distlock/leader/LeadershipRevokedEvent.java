package io.github.distlock.leader;

/**
 * This instance no longer leads the election: the term {@link #getLeadership()} ended, for {@link #getReason()}.
 * Published before the lock is released, or, for a lost lock, as the engine finds the loss (on the engine's thread).
 */
public class LeadershipRevokedEvent extends LeadershipEvent {

	private final LeadershipListener.Revocation reason;

	public LeadershipRevokedEvent(Object source, Leadership leadership, LeadershipListener.Revocation reason) {
		super(source, leadership);
		this.reason = reason;
	}

	/** Why the term ended: the lock lost, the leader yielded, or the election shut down. */
	public LeadershipListener.Revocation getReason() {
		return this.reason;
	}

	@Override
	public String toString() {
		return "LeadershipRevokedEvent[" + getLeadership() + ", " + this.reason + "]";
	}

}
