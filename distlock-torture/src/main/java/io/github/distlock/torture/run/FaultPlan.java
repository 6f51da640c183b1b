package io.github.distlock.torture.run;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

/**
 * When each fault strikes: a fault-free opening, then one slot per fault in a random order, each fault at a random
 * moment of its slot (a worker fault then waits, briefly, for a worker in a critical section). Slots are long enough for a fault's effects (overlaps, expiries, recovery) to settle before
 * the next, so the checker can tell which fault caused what.
 */
record FaultPlan(List<Planned> faults) {

	/** How long a worker fault may look for a worker in the middle of a section before it strikes. */
	static final Duration SEARCH = Duration.ofSeconds(2);

	/** A fault, so many milliseconds after the load started, lasting so long. */
	record Planned(FaultKind kind, long atMillis, long durationMillis) {

	}

	static FaultPlan random(List<FaultKind> kinds, Duration clean, Duration slot, Duration settle, Duration lease,
			Random random) {
		List<FaultKind> order = new ArrayList<>(kinds);
		Collections.shuffle(order, random);
		List<Planned> planned = new ArrayList<>();
		for (int i = 0; i < order.size(); i++) {
			long duration = duration(order.get(i), lease);
			long slack = slot.toMillis() - SEARCH.toMillis() - duration - settle.toMillis();
			if (slack < 0) {
				throw new IllegalArgumentException("A slot of " + slot + " is too short for " + order.get(i)
						+ " and " + settle + " to settle");
			}
			long at = clean.toMillis() + i * slot.toMillis() + (long) (random.nextDouble() * slack);
			planned.add(new Planned(order.get(i), at, duration));
		}
		return new FaultPlan(List.copyOf(planned));
	}

	private static long duration(FaultKind kind, Duration lease) {
		return switch (kind) {
			// Well beyond the lease: the paused holder's lock must expire and be taken by another.
			case WORKER_PAUSE -> lease.toMillis() * 5 / 2;
			case REDIS_PAUSE -> lease.toMillis() * 2;
			// The time the server stays down between the kill and the new start.
			case REDIS_RESTART -> 500;
			case WORKER_KILL -> 0;
		};
	}

}
