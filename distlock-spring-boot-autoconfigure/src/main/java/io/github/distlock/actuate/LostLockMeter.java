package io.github.distlock.actuate;

import java.util.Collection;
import java.util.Locale;
import java.util.function.Supplier;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.beans.factory.SmartInitializingSingleton;

import io.github.distlock.LockLostListener;
import io.github.distlock.LostLock;

/**
 * Counts lost locks as {@code distlock.lost}, tagged by lock name and reason (never by key). The counters of every
 * lock declared by annotation exist from the end of start-up, at zero, so that a dashboard or an alert on them sees
 * a series before the first loss; a lock named only in code gets its counter at its first loss.
 */
public class LostLockMeter implements LockLostListener, SmartInitializingSingleton {

	private final MeterRegistry registry;

	private final Supplier<Collection<String>> declaredNames;

	/**
	 * @param registry where the counters go
	 * @param declaredNames the names of the locks declared by annotation, asked once start-up is over
	 */
	public LostLockMeter(MeterRegistry registry, Supplier<Collection<String>> declaredNames) {
		this.registry = registry;
		this.declaredNames = declaredNames;
	}

	@Override
	public void afterSingletonsInstantiated() {
		for (String name : this.declaredNames.get()) {
			for (LostLock.Reason reason : LostLock.Reason.values()) {
				counter(name, reason);
			}
		}
	}

	@Override
	public void onLockLost(LostLock lostLock) {
		counter(lostLock.name(), lostLock.reason()).increment();
	}

	private Counter counter(String name, LostLock.Reason reason) {
		return Counter.builder("distlock.lost")
			.description("Locks lost while their work ran")
			.tag("name", name)
			.tag("reason", reason.name().toLowerCase(Locale.ROOT))
			.register(this.registry);
	}

}
