package io.github.distlock.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Leader election, under {@code distlock.leader.*}: the elections this instance stands in.
 */
public class LeaderProperties {

	/**
	 * The elections this instance stands in, by name, besides those its @LeaderOnly methods name; each is led by one
	 * instance at a time, which holds the lock (leader, name). Leadership is published as LeadershipGrantedEvent and
	 * LeadershipRevokedEvent.
	 */
	private List<String> elections = new ArrayList<>();

	/**
	 * Lease of an election's lock, renewed while this instance leads: how long a leader that dies keeps the others
	 * waiting.
	 */
	private Duration lease = Duration.ofSeconds(30);

	/**
	 * How long a candidate stays out after yielding, and waits after an attempt that failed.
	 */
	private Duration retryPause = Duration.ofSeconds(1);

	public List<String> getElections() {
		return this.elections;
	}

	public void setElections(List<String> elections) {
		for (String election : elections) {
			if (election == null || election.isBlank()) {
				throw new IllegalArgumentException("distlock.leader.elections must name each election, got "
						+ elections);
			}
		}
		this.elections = elections;
	}

	public Duration getLease() {
		return this.lease;
	}

	public void setLease(Duration lease) {
		this.lease = DurationSettings.lease("distlock.leader.lease", lease);
	}

	public Duration getRetryPause() {
		return this.retryPause;
	}

	public void setRetryPause(Duration retryPause) {
		this.retryPause = DurationSettings.lease("distlock.leader.retry-pause", retryPause);
	}

}
