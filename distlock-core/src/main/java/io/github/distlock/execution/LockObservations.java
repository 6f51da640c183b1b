package io.github.distlock.execution;

import java.util.function.Supplier;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;

import io.github.distlock.LockAcquisitionException;

/**
 * Records waiting for and holding locks through Micrometer's Observation API, so one instrumentation gives timers
 * ({@code distlock.acquire}, {@code distlock.held}), their active long-task timers, and spans where tracing is on.
 * Tags carry the lock name and the outcome, never the key, so their number stays bounded. Public for the locks taken
 * outside the interceptor, such as ShedLock's runs ({@code distlock-shedlock}), so that they count in the same meters.
 */
public final class LockObservations {

	static final String ACQUIRE = "distlock.acquire";

	static final String HELD = "distlock.held";

	private final Supplier<ObservationRegistry> registry;

	public LockObservations(Supplier<ObservationRegistry> registry) {
		this.registry = registry;
	}

	public Observation startAcquire(String name) {
		return Observation.createNotStarted(ACQUIRE, this.registry.get())
			.lowCardinalityKeyValue("name", name)
			.start();
	}

	public static void acquired(Observation acquire) {
		acquire.lowCardinalityKeyValue("outcome", "acquired").stop();
	}

	public static void notAcquired(Observation acquire, LockAcquisitionException ex) {
		String outcome = (ex.getCause() instanceof InterruptedException) ? "interrupted"
				: ex.isStoreUnavailable() ? "unavailable" : "timed_out";
		acquire.lowCardinalityKeyValue("outcome", outcome);
		if (ex.isStoreUnavailable()) {
			acquire.error(ex);
		}
		acquire.stop();
	}

	public Observation startHeld(String name) {
		return Observation.createNotStarted(HELD, this.registry.get())
			.lowCardinalityKeyValue("name", name)
			.start();
	}

	public static void released(Observation held, boolean lost) {
		held.lowCardinalityKeyValue("outcome", lost ? "lost" : "released").stop();
	}

}
