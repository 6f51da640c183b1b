package io.github.distlock.leader;

/** This instance leads the election from now on, in the term {@link #getLeadership()}. */
public class LeadershipGrantedEvent extends LeadershipEvent {

	public LeadershipGrantedEvent(Object source, Leadership leadership) {
		super(source, leadership);
	}

	@Override
	public String toString() {
		return "LeadershipGrantedEvent[" + getLeadership() + "]";
	}

}
