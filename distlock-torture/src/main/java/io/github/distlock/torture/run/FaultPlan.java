package io.github.distlock.torture.run;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

/**
 * When each fault strikes: a fault-free opening, then one slot per fault in a random order, each fault at a random
 * moment of the first {@code spare} of its slot (a worker fault then waits, briefly, for a worker in a critical
 * section). A slot is as long as its fault needs to strike and for its effects (overlaps, expiries, recovery) to
 * settle before the next, so the checker can tell which fault caused what; short faults get short slots, which
 * keeps the build's run short.
 */
record FaultPlan(List<Planned> faults) {

	/** How long a worker fault may look for a worker in the middle of a section before it strikes. */
	static final Duration SEARCH = Duration.ofSeconds(2);

	/** How many times in a row a connection kill cuts the workers' connections: the reconnected ones too. */
	static final int CLIENT_KILL_ROUNDS = 3;

	/** Between two rounds of a connection kill: a fraction of a lease, so renewals meet a fresh kill. */
	static final Duration CLIENT_KILL_INTERVAL = Duration.ofMillis(250);

	/** A fault, so many milliseconds after the load started, lasting so long. */
	record Planned(FaultKind kind, long atMillis, long durationMillis) {

	}

	static FaultPlan random(List<FaultKind> kinds, Duration clean, Duration spare, Duration settle, Duration lease,
			Random random) {
		List<FaultKind> order = new ArrayList<>(kinds);
		Collections.shuffle(order, random);
		List<Planned> planned = new ArrayList<>();
		long slotStart = clean.toMillis();
		for (FaultKind kind : order) {
			long at = slotStart + (long) (random.nextDouble() * spare.toMillis());
			planned.add(new Planned(kind, at, duration(kind, lease)));
			slotStart += slot(kind, settle, spare, lease).toMillis();
		}
		return new FaultPlan(List.copyOf(planned));
	}

	/** How long the faults' slots take in all, whatever their order. */
	static Duration length(List<FaultKind> kinds, Duration settle, Duration spare, Duration lease) {
		return kinds.stream().map((kind) -> slot(kind, settle, spare, lease)).reduce(Duration.ZERO, Duration::plus);
	}

	private static Duration slot(FaultKind kind, Duration settle, Duration spare, Duration lease) {
		Duration search = switch (kind) {
			case WORKER_PAUSE, WORKER_KILL, WORKER_STARVE -> SEARCH;
			default -> Duration.ZERO;
		};
		return spare.plus(search).plusMillis(duration(kind, lease)).plus(settle);
	}

	private static long duration(FaultKind kind, Duration lease) {
		return switch (kind) {
			// Well beyond the lease: the paused holder's lock must expire and be taken by another.
			case WORKER_PAUSE -> lease.toMillis() * 5 / 2;
			// Several renewal intervals of a slowed-down watchdog.
			case WORKER_STARVE -> lease.toMillis() * 3;
			case REDIS_PAUSE -> lease.toMillis() * 2;
			// The time the server stays down between the kill and the new start.
			case REDIS_RESTART -> 500;
			// Past the statement timeout and the lease: renewals fail, leases run out, the table is free again.
			case DB_STALL -> lease.toMillis() * 2;
			case CLIENT_KILL_NORMAL, CLIENT_KILL_PUBSUB, DB_CONNECTION_KILL ->
				(CLIENT_KILL_ROUNDS - 1) * CLIENT_KILL_INTERVAL.toMillis();
			case WORKER_KILL -> 0;
		};
	}

}
