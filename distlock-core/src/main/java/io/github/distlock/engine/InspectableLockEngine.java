package io.github.distlock.engine;

import java.time.Duration;
import java.util.List;

/**
 * An engine that tells what it holds and does, for metrics, health and the {@code distlocks} endpoint. Answers come
 * from the engine's own memory, never from the store.
 */
public interface InspectableLockEngine extends LockEngine {

	/** Locks this engine holds now. */
	int heldCount();

	/** Threads waiting for a lock in this engine now. */
	int waitingCount();

	/** How late the most overdue lease renewal is (zero while renewal keeps up). */
	Duration renewalLag();

	/** Running counts of renewals, refusals and losses. */
	LockEngineStatistics statistics();

	/** A snapshot of the locks this engine holds now. */
	List<HeldLockView> heldLocks();

}
