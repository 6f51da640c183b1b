package io.github.distlock.leader;

import java.time.Duration;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;
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

	private final LockEngine engine;

	private final Duration lease;

	private final Duration retryPause;

	private final ApplicationEventPublisher events;

	/** Asked at start: the elections that methods declare ({@link LeaderOnly}), known once every bean exists. */
	private final Supplier<? extends Collection<String>> declared;

	/** Replaced whole, never changed: read by every {@code @LeaderOnly} call, written at start. */
	private volatile Map<String, LeaderElection> elections;

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
		this(engine, names, List::of, lease, retryPause, events);
	}

	/**
	 * @param engine where the elections' locks live
	 * @param names the elections to stand in
	 * @param declared more elections to stand in, asked at start: those that {@link LeaderOnly} methods name
	 * @param lease each election's lock lease, renewed while this instance leads
	 * @param retryPause how long a candidate stays out after yielding or a failed attempt
	 * @param events where the elections' events are published
	 */
	public LeaderElections(LockEngine engine, List<String> names, Supplier<? extends Collection<String>> declared,
			Duration lease, Duration retryPause, ApplicationEventPublisher events) {
		this.engine = Objects.requireNonNull(engine, "engine");
		this.lease = lease;
		this.retryPause = retryPause;
		this.events = Objects.requireNonNull(events, "events");
		this.declared = declared;
		this.elections = withElections(Map.of(), names);
	}

	private Map<String, LeaderElection> withElections(Map<String, LeaderElection> current, Collection<String> names) {
		Map<String, LeaderElection> all = new LinkedHashMap<>(current);
		for (String name : names) {
			all.computeIfAbsent(name, this::newElection);
		}
		return Collections.unmodifiableMap(all);
	}

	private LeaderElection newElection(String name) {
		return new LeaderElection(this.engine, name, this.lease, this.retryPause, new LeadershipListener() {

			@Override
			public void granted(Leadership leadership) {
				LeaderElections.this.events.publishEvent(new LeadershipGrantedEvent(LeaderElections.this, leadership));
			}

			@Override
			public void revoked(Leadership leadership, Revocation reason) {
				LeaderElections.this.events
					.publishEvent(new LeadershipRevokedEvent(LeaderElections.this, leadership, reason));
			}

		});
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

	/** The election of this name that this instance stands in, or null. */
	public @Nullable LeaderElection election(String name) {
		return this.elections.get(name);
	}

	/** Every election this instance stands in, by name, in the order they were named. */
	public Map<String, LeaderElection> elections() {
		return this.elections;
	}

	@Override
	public void start() {
		Map<String, LeaderElection> all = withElections(this.elections, this.declared.get());
		this.elections = all;
		all.values().forEach(LeaderElection::start);
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
