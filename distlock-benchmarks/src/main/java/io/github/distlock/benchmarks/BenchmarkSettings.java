package io.github.distlock.benchmarks;

import java.time.Duration;
import java.util.List;

import io.github.distlock.benchmarks.systems.LockSettings;

/**
 * Sizes and durations of a run.
 *
 * @param profile "full" or "smoke"
 * @param locks lease and wait time given to every system
 * @param warmup how long each system runs a timed scenario before its rounds count (JIT, pools, script caches)
 * @param rounds how many rounds each timed scenario has; every round runs every system once, in a rotated order
 * @param roundTime how long one system runs in one round of the uncontended, parallel and try-lock scenarios
 * @param contendedRoundTime the same for the hot-key scenario, whose hand-overs are slower
 * @param parallelThreads threads of the parallel scenario
 * @param contendedClients independent clients on the hot key
 * @param threadsPerClient threads of each client on the hot key
 * @param manyKeysThreads threads of the many-keys scenario
 * @param manyKeys how many keys the many-keys scenario draws from
 * @param maxHold the longest a many-keys holder keeps its lock (each hold is drawn at random up to it)
 * @param heldLocks locks held at once in the renewal and memory scenario (measured also at a tenth of it)
 * @param renewalWindow how long the held locks are watched
 * @param cycles lock/unlock cycles of the footprint scenario
 * @param footprintThreads threads running those cycles
 * @param structuralOps operations traced with MONITOR for the structural counts
 * @param maxOpsPerLoop upper bound on the operations of any one load loop, whatever its time
 */
public record BenchmarkSettings(String profile, LockSettings locks, Duration warmup, int rounds, Duration roundTime,
		Duration contendedRoundTime, int parallelThreads, int contendedClients, int threadsPerClient, int manyKeysThreads,
		int manyKeys, Duration maxHold, int heldLocks, Duration renewalWindow, int cycles, int footprintThreads,
		int structuralOps, long maxOpsPerLoop) {

	/**
	 * The documented run: about four and a half minutes on a 2-core machine. The lease is 3 s rather than
	 * distlock's default 30 s so that renewal ticks (every lease / 3) happen within a few seconds of watching.
	 */
	public static BenchmarkSettings full() {
		return new BenchmarkSettings("full", new LockSettings(Duration.ofSeconds(3), Duration.ofSeconds(10)),
				Duration.ofMillis(1500), 5, Duration.ofSeconds(1), Duration.ofMillis(1500), 16, 4, 4, 200, 10_000,
				Duration.ofMillis(1), 10_000, Duration.ofSeconds(3), 10_000, 1, 200, 5_000_000);
	}

	/** Seconds-long, for CI: every system and scenario, tiny sizes. */
	public static BenchmarkSettings smoke() {
		return new BenchmarkSettings("smoke", new LockSettings(Duration.ofMillis(1200), Duration.ofSeconds(5)),
				Duration.ofMillis(150), 2, Duration.ofMillis(150), Duration.ofMillis(300), 16, 4, 4, 32, 1_000,
				Duration.ofMillis(1), 200, Duration.ofMillis(500), 300, 1, 20, 200_000);
	}

	/**
	 * The scale figures, run apart from the documented run: 100,000 locks held at once, and 1,000,000 distinct keys
	 * each locked once (on 16 threads, so that it takes about a minute per system), with the full run's lease.
	 */
	public static BenchmarkSettings scale() {
		BenchmarkSettings full = full();
		return new BenchmarkSettings("scale", full.locks, full.warmup, full.rounds, full.roundTime,
				full.contendedRoundTime, full.parallelThreads, full.contendedClients, full.threadsPerClient,
				full.manyKeysThreads, full.manyKeys, full.maxHold, 100_000, Duration.ofSeconds(3), 1_000_000, 16,
				full.structuralOps, full.maxOpsPerLoop);
	}

	/**
	 * Options of the worker JVMs the two-JVM scenario starts. A full run's workers are measured, so they run as the
	 * JVM would by default; a smoke run only checks that every system produces numbers, and most of its two-JVM time
	 * is JVMs starting, which C2's compiler threads slow on a small machine.
	 */
	public List<String> workerJvmOptions() {
		return "smoke".equals(this.profile) ? List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC") : List.of();
	}

	/** Renewal happens every third of the lease in every system compared. */
	public Duration renewalInterval() {
		return this.locks.lease().dividedBy(3);
	}

}
