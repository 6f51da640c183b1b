package io.github.distlock.actuate;

import java.time.Duration;

import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

import io.github.distlock.redis.EvictionPolicy;
import io.github.distlock.redis.EvictionPolicyReader;
import io.github.distlock.redis.RedisLockEngine;

/**
 * Health of locking: UP while Redis answers within the timeout, accepts distlock's lock commands and the watchdog
 * keeps up with renewals; DOWN otherwise, saying which: no answer in time, unreachable, or refused (a missing
 * permission, a full memory, a read-only replica) with Redis' own words. Details tell the round-trip time, how many locks this instance holds, how many it lost, and how late
 * renewal runs. Never an address, a password or a key.
 */
public class DistLockHealthIndicator extends AbstractHealthIndicator {

	private final RedisLockEngine engine;

	private final Duration timeout;

	private final Duration maxRenewalLag;

	private final EvictionPolicyReader evictionPolicy;

	/**
	 * @param timeout the longest the check waits for Redis, so a hung Redis cannot hang the health endpoint
	 * @param maxRenewalLag how late renewal may run before locks are at risk and health is DOWN
	 */
	public DistLockHealthIndicator(RedisLockEngine engine, Duration timeout, Duration maxRenewalLag) {
		this(engine, timeout, maxRenewalLag, null);
	}

	/**
	 * @param evictionPolicy reads Redis's eviction policy on each check, once Redis has answered the ping; null to
	 * leave the {@code evictionPolicy} detail out. A policy that can evict locks is a configuration risk, not an
	 * outage: it adds a {@code warning} detail and leaves health UP.
	 */
	public DistLockHealthIndicator(RedisLockEngine engine, Duration timeout, Duration maxRenewalLag,
			EvictionPolicyReader evictionPolicy) {
		super((ex) -> "distlock health check failed");
		this.engine = engine;
		this.timeout = timeout;
		this.maxRenewalLag = maxRenewalLag;
		this.evictionPolicy = evictionPolicy;
	}

	@Override
	protected void doHealthCheck(Health.Builder builder) {
		Duration renewalLag = this.engine.renewalLag();
		builder.withDetail("locksHeld", this.engine.heldCount())
			.withDetail("locksLost", this.engine.statistics().lost())
			.withDetail("renewalLagMillis", renewalLag.toMillis());
		try {
			Duration roundTrip = this.engine.ping(this.timeout);
			builder.withDetail("roundTripMillis", roundTrip.toMillis());
		}
		catch (RuntimeException ex) {
			builder.down().withDetail("error", this.engine.describeFailure(ex, this.timeout));
			return;
		}
		String refusal = this.engine.standingRefusal();
		if (refusal != null) {
			builder.down().withDetail("error", "Redis refuses distlock's lock commands: " + refusal);
			return;
		}
		addEvictionPolicy(builder);
		if (renewalLag.compareTo(this.maxRenewalLag) > 0) {
			builder.down().withDetail("error", "lease renewal runs " + renewalLag.toMillis() + " ms late");
			return;
		}
		builder.up();
	}

	private void addEvictionPolicy(Health.Builder builder) {
		if (this.evictionPolicy == null) {
			return;
		}
		EvictionPolicy policy = this.evictionPolicy.read();
		builder.withDetail("evictionPolicy", policy.policy());
		if (policy.hazard() != null) {
			builder.withDetail("warning", policy.hazard());
		}
	}

}
