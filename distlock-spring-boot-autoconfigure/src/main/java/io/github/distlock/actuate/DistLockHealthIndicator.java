package io.github.distlock.actuate;

import java.time.Duration;
import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

import io.github.distlock.engine.CheckableLockEngine;
import io.github.distlock.engine.InspectableLockEngine;
import io.github.distlock.leader.LeaderElections;

/**
 * Health of locking: UP while the lock store answers within the timeout, accepts distlock's lock commands and the
 * watchdog keeps up with renewals; DOWN otherwise, saying which: no answer in time, unreachable, or refused (for
 * Redis: a missing permission, a full memory, a read-only replica) in the store's own words. Details tell the
 * round-trip time, how many locks this instance holds, how many it lost, how late renewal runs, and the leader
 * elections it stands in (which it leads, with the epoch and since when), plus what the engine adds about its store's
 * configuration (for Redis, its eviction policy). Never an address, a password or a key.
 */
public class DistLockHealthIndicator extends AbstractHealthIndicator {

	private final InspectableLockEngine engine;

	private final CheckableLockEngine store;

	private final Duration timeout;

	private final Duration maxRenewalLag;

	private final @Nullable LeaderElections elections;

	/**
	 * @param engine the engine whose locks are counted
	 * @param store the same engine, seen through its store check
	 * @param timeout the longest the check waits for the store, so a hung store cannot hang the health endpoint
	 * @param maxRenewalLag how late renewal may run before locks are at risk and health is DOWN
	 */
	public DistLockHealthIndicator(InspectableLockEngine engine, CheckableLockEngine store, Duration timeout,
			Duration maxRenewalLag) {
		this(engine, store, timeout, maxRenewalLag, null);
	}

	/**
	 * @param engine the engine whose locks are counted
	 * @param store the same engine, seen through its store check
	 * @param timeout the longest the check waits for the store, so a hung store cannot hang the health endpoint
	 * @param maxRenewalLag how late renewal may run before locks are at risk and health is DOWN
	 * @param elections the leader elections this instance stands in, or null for none
	 */
	public DistLockHealthIndicator(InspectableLockEngine engine, CheckableLockEngine store, Duration timeout,
			Duration maxRenewalLag, @Nullable LeaderElections elections) {
		super((ex) -> "distlock health check failed");
		this.engine = engine;
		this.store = store;
		this.timeout = timeout;
		this.maxRenewalLag = maxRenewalLag;
		this.elections = elections;
	}

	@Override
	protected void doHealthCheck(Health.Builder builder) {
		Duration renewalLag = this.engine.renewalLag();
		builder.withDetail("locksHeld", this.engine.heldCount())
			.withDetail("locksLost", this.engine.statistics().lost())
			.withDetail("renewalLagMillis", renewalLag.toMillis());
		List<ElectionView> standing = ElectionView.of(this.elections);
		if (!standing.isEmpty()) {
			builder.withDetail("elections", standing);
		}
		try {
			Duration roundTrip = this.store.ping(this.timeout);
			builder.withDetail("roundTripMillis", roundTrip.toMillis());
		}
		catch (RuntimeException ex) {
			builder.down().withDetail("error", this.store.describeFailure(ex, this.timeout));
			return;
		}
		String refusal = this.store.standingRefusal();
		if (refusal != null) {
			builder.down().withDetail("error", refusal);
			return;
		}
		// Read on every check, so a setting fixed on the store shows without a restart. A warning among them is a
		// configuration risk (an eviction policy that can evict locks), not an outage: health stays UP.
		builder.withDetails(this.store.storeDetails(this.timeout));
		if (renewalLag.compareTo(this.maxRenewalLag) > 0) {
			builder.down().withDetail("error", "lease renewal runs " + renewalLag.toMillis() + " ms late");
			return;
		}
		builder.up();
	}

}
