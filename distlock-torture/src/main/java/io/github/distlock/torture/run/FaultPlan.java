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

	static FaultPlan random(TortureSettings settings, Random random) {
		List<FaultKind> order = new ArrayList<>(settings.faults());
		Collections.shuffle(order, random);
		List<Planned> planned = new ArrayList<>();
		long slotStart = settings.clean().toMillis();
		for (FaultKind kind : order) {
			long at = slotStart + (long) (random.nextDouble() * settings.spare().toMillis());
			planned.add(new Planned(kind, at, duration(kind, settings)));
			slotStart += slot(kind, settings).toMillis();
		}
		return new FaultPlan(List.copyOf(planned));
	}

	/** How long the faults' slots take in all, whatever their order. */
	static Duration length(TortureSettings settings) {
		return settings.faults().stream().map((kind) -> slot(kind, settings)).reduce(Duration.ZERO, Duration::plus);
	}

	private static Duration slot(FaultKind kind, TortureSettings settings) {
		Duration search = switch (kind) {
			// A leader kill too waits for a worker in the middle of a section, so that it strikes held locks.
			case WORKER_PAUSE, WORKER_KILL, WORKER_STARVE, LEADER_KILL -> SEARCH;
			default -> Duration.ZERO;
		};
		return settings.spare()
			.plus(search)
			.plusMillis(duration(kind, settings))
			.plus(recovery(kind, settings))
			.plus(settings.settle());
	}

	/**
	 * How long a fault of a Redis topology goes on after its planned duration, until its roles have settled: the
	 * cluster's or the sentinels' failover of a stopped master and the old master's resync as a replica, a forced
	 * failover, a slot's move. Measured on this 2-core machine with a margin, so that the next fault's slot starts
	 * after it. Behind Sentinel most of it is the stale master: the sentinels order a demoted master to replicate
	 * only when their periodic INFO (every 10 s) finds it calling itself master, so a Sentinel fault lasts 11–13 s.
	 */
	private static Duration recovery(FaultKind kind, TortureSettings settings) {
		return switch (kind) {
			// The new start of the killed node and its full resync as a replica.
			case REDIS_KILL -> Duration.ofSeconds(2);
			case REDIS_PAUSE -> switch (settings.store()) {
				case REDIS_CLUSTER -> Duration.ofSeconds(2);
				case REDIS_SENTINEL -> Duration.ofSeconds(12);
				default -> Duration.ZERO;
			};
			case SENTINEL_FAILOVER -> Duration.ofSeconds(13);
			case CLUSTER_FAILOVER, SLOT_MIGRATE -> Duration.ofSeconds(1);
			case LEADER_KILL -> leaderKillRecovery(settings.store());
			default -> Duration.ZERO;
		};
	}

	/**
	 * How long a leader kill takes from the kill until the killed member follows the new leader (the injector waits
	 * for each step; this only keeps the next fault's slot clear of it): the survivors' election, then the member's
	 * new start and its sync. On etcd (500 ms election timeout) an election takes 0.5–1 s and a member starts in
	 * about a second (the first short runs of 2026-11-27: 2.2–2.3 s in all); a ZooKeeper member is a JVM that starts
	 * in 2–3 s on this machine, after an election of 0.5–1.9 s (2.8–4.5 s in all). With a margin.
	 */
	private static Duration leaderKillRecovery(StoreKind store) {
		return (store == StoreKind.ZOOKEEPER_ENSEMBLE) ? Duration.ofSeconds(6) : Duration.ofSeconds(3);
	}

	private static long duration(FaultKind kind, TortureSettings settings) {
		long lease = settings.lease().toMillis();
		return switch (kind) {
			// Well beyond the lease, and beyond a ZooKeeper session: the paused holder's lock must end and be taken
			// by another.
			case WORKER_PAUSE -> Math.max(lease * 5 / 2, settings.sessionTimeout().toMillis() + lease);
			// Several renewal intervals of a slowed-down watchdog.
			case WORKER_STARVE -> lease * 3;
			// On a cluster also past its node timeout (a second), so the master's replica takes over; behind Sentinel
			// until the sentinels have promoted the replica, and at least this long.
			case REDIS_PAUSE -> lease * 2;
			// Down at least this long, and until its replica has taken over (past the node timeout, a second).
			case REDIS_KILL -> lease * 2;
			// The time the server stays down between the kill and the new start.
			case REDIS_RESTART -> 500;
			// Past the statement timeout and the lease: renewals fail, leases run out, the table is free again.
			case DB_STALL -> lease * 2;
			// Past the session timeout and a lease more: leases run out, and silent sessions end on resuming.
			case ZK_PAUSE -> settings.sessionTimeout().toMillis() + lease;
			// Nothing is waited for between the kill and the new start: the new server JVM's start (most of a
			// second on a busy machine) is the time the server stays down, and this much of the slot is kept for it.
			case ZK_RESTART -> 1000;
			// Past the instance lease and a lock lease more, as for ZooKeeper's session.
			case ETCD_PAUSE -> settings.sessionTimeout().toMillis() + lease;
			// The time the server stays down: its new start, on loopback and a small data directory, under a second.
			case ETCD_RESTART -> 1000;
			case CLIENT_KILL_NORMAL, CLIENT_KILL_PUBSUB, DB_CONNECTION_KILL ->
				(CLIENT_KILL_ROUNDS - 1) * CLIENT_KILL_INTERVAL.toMillis();
			// Carried out step by step, as fast as the cluster answers: the slot's few keys move at once.
			// As fast as the ensemble elects and takes the killed member back: its recovery is all of it.
			case WORKER_KILL, SLOT_MIGRATE, CLUSTER_FAILOVER, SENTINEL_FAILOVER, LEADER_KILL -> 0;
		};
	}

}
