package io.github.distlock.actuate;

import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.binder.MeterBinder;

import io.github.distlock.engine.LockEngineStatistics;
import io.github.distlock.engine.InspectableLockEngine;

/**
 * Engine-wide meters read from the engine's own counts, so recording costs nothing on the locking path:
 * locks held and waiting now, renewals by outcome, renewal round trips, refusals by the store, and renewal lag.
 */
public class DistLockMeterBinder implements MeterBinder {

	private final InspectableLockEngine engine;

	public DistLockMeterBinder(InspectableLockEngine engine) {
		this.engine = engine;
	}

	@Override
	public void bindTo(MeterRegistry registry) {
		LockEngineStatistics statistics = this.engine.statistics();
		Gauge.builder("distlock.locks.held", this.engine, InspectableLockEngine::heldCount)
			.description("Locks this instance holds now")
			.register(registry);
		Gauge.builder("distlock.locks.waiting", this.engine, InspectableLockEngine::waitingCount)
			.description("Threads of this instance waiting for a lock now")
			.register(registry);
		renewals(registry, statistics, "renewed", LockEngineStatistics::renewals);
		renewals(registry, statistics, "not_owned", LockEngineStatistics::renewalsNotOwned);
		renewals(registry, statistics, "failed", LockEngineStatistics::renewalFailures);
		FunctionCounter.builder("distlock.renewal.round.trips", statistics, LockEngineStatistics::renewalRoundTrips)
			.description("Round trips to the lock store made to renew leases; one renews a whole batch of locks")
			.register(registry);
		FunctionCounter.builder("distlock.store.refusals", statistics, LockEngineStatistics::refusals)
			.description("Lock calls the lock store refused with an error that waiting does not cure (for Redis: NOPERM, "
					+ "WRONGTYPE, OOM, READONLY)")
			.register(registry);
		TimeGauge.builder("distlock.renewal.lag", this.engine, TimeUnit.MILLISECONDS,
				(engine) -> engine.renewalLag().toMillis())
			.description("How late the most overdue lease renewal runs")
			.register(registry);
	}

	private static void renewals(MeterRegistry registry, LockEngineStatistics statistics, String outcome,
			java.util.function.ToDoubleFunction<LockEngineStatistics> count) {
		FunctionCounter.builder("distlock.renewals", statistics, count)
			.description("Lease renewals by outcome")
			.tag("outcome", outcome)
			.register(registry);
	}

}
