package io.github.distlock.actuate;

import java.util.Map;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.Selector;

import io.github.distlock.engine.ForceReleasableLockEngine;
import io.github.distlock.engine.InspectableLockEngine;
import io.github.distlock.leader.LeaderElections;

/**
 * The {@code distlocks} endpoint with a force-release operation, for a lock stuck with a live but hung holder.
 * Used only when {@code distlock.endpoint.force-release=true}; it is then as protected as the application's other
 * Actuator operations. The holder finds its lock lost at its next renewal.
 */
@Endpoint(id = "distlocks")
public class ReleasableDistLocksEndpoint extends DistLocksEndpoint {

	private final ForceReleasableLockEngine releaser;

	/**
	 * @param engine lists the held locks
	 * @param releaser removes a lock (the same engine, seen through its other capability)
	 */
	public ReleasableDistLocksEndpoint(InspectableLockEngine engine, ForceReleasableLockEngine releaser) {
		this(engine, releaser, null);
	}

	/**
	 * @param engine lists the held locks
	 * @param releaser removes a lock (the same engine, seen through its other capability)
	 * @param elections the leader elections this instance stands in, or null for none
	 */
	public ReleasableDistLocksEndpoint(InspectableLockEngine engine, ForceReleasableLockEngine releaser,
			@Nullable LeaderElections elections) {
		super(engine, elections);
		this.releaser = releaser;
	}

	@DeleteOperation
	public Map<String, Object> forceRelease(@Selector String name, @Selector String key) {
		return Map.of("name", name, "released", this.releaser.forceRelease(name, key));
	}

}
