package io.github.distlock.leader;

import org.springframework.context.ApplicationEvent;

/**
 * A change of this instance's leadership in an election, published as a Spring application event by
 * {@link LeaderElections}: {@link LeadershipGrantedEvent} or {@link LeadershipRevokedEvent}.
 */
public abstract class LeadershipEvent extends ApplicationEvent {

	private final Leadership leadership;

	/** @param source what published the event, such as {@link LeaderElections} */
	LeadershipEvent(Object source, Leadership leadership) {
		super(source);
		this.leadership = leadership;
	}

	/** The term the event is about: the election's name, the epoch and when it was granted. */
	public Leadership getLeadership() {
		return this.leadership;
	}

}
