package io.github.distlock.leader;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;

import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.SmartLifecycle;

import io.github.distlock.engine.LockEngine;

/**
 * The elections this application instance stands in, started and stopped with the application context: each term is
 * published as a {@link LeadershipGrantedEvent} and a {@link LeadershipRevokedEvent}. It starts after every other
 * lifecycle bean and stops before them (the last phase), so an instance leads only while it is fully up, and its
 * leadership is revoked and released before the rest of it stops.
 */
public final class LeaderElections implements SmartLifecycle {

	private final Map<String, LeaderElection> elections = new LinkedHashMap<>();

	private volatile boolean running;

	/**
	 * @param engine where the elections' locks live
	 * @param names the elections to stand in
	 * @param lease each election's lock lease, renewed while this instance leads
	 * @param retryPause how long a candidate stays out after yielding or a failed attempt
	 * @param events where the elections' events are published
	 */
	public LeaderElections(LockEngine engine, List<String> names, Duration lease, Duration retryPause,
			ApplicationEventPublisher events) {
		Objects.requireNonNull(events, "events");
		for (String name : names) {
			this.elections.computeIfAbsent(name,
					(key) -> new LeaderElection(engine, key, lease, retryPause, new LeadershipListener() {

						@Override
						public void granted(Leadership leadership) {
							events.publishEvent(new LeadershipGrantedEvent(LeaderElections.this, leadership));
						}

						@Override
						public void revoked(Leadership leadership, Revocation reason) {
							events.publishEvent(new LeadershipRevokedEvent(LeaderElections.this, leadership, reason));
						}

					}));
		}
	}

	/** Whether this instance leads the election now; false for an election it does not stand in. */
	public boolean isLeader(String election) {
		LeaderElection candidate = this.elections.get(election);
		return candidate != null && candidate.isLeader();
	}

	/** The epoch of this instance's current term in the election, while it leads. */
	public OptionalLong epoch(String election) {
		LeaderElection candidate = this.elections.get(election);
		return (candidate != null) ? candidate.epoch() : OptionalLong.empty();
	}

	/**
	 * Gives up this instance's current term in the election, if it leads (see {@link LeaderElection#yieldLeadership()}).
	 * @return whether a term ended
	 */
	public boolean yieldLeadership(String election) {
		LeaderElection candidate = this.elections.get(election);
		return candidate != null && candidate.yieldLeadership();
	}

	/** Every election this instance stands in, by name. */
	public Map<String, LeaderElection> elections() {
		return Map.copyOf(this.elections);
	}

	@Override
	public void start() {
		this.elections.values().forEach(LeaderElection::start);
		this.running = true;
	}

	@Override
	public void stop() {
		this.running = false;
		this.elections.values().forEach(LeaderElection::close);
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

}
