package io.github.distlock.actuate;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

import io.github.distlock.LockLostListener;
import io.github.distlock.LostLock;

/**
 * Counts lost locks as {@code distlock.lost}, tagged by lock name and reason (never by key).
 */
public class LostLockMeter implements LockLostListener {

	private final MeterRegistry registry;

	public LostLockMeter(MeterRegistry registry) {
		this.registry = registry;
	}

	@Override
	public void onLockLost(LostLock lostLock) {
		Counter.builder("distlock.lost")
			.description("Locks lost while their work ran")
			.tag("name", lostLock.name())
			.tag("reason", lostLock.reason().name().toLowerCase(java.util.Locale.ROOT))
			.register(this.registry)
			.increment();
	}

}
