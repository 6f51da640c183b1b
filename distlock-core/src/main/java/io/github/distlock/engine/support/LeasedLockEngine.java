package io.github.distlock.engine.support;

import java.time.Duration;
import java.util.List;

import io.github.distlock.engine.HeldLockView;
import io.github.distlock.engine.InspectableLockEngine;
import io.github.distlock.engine.LockEngineStatistics;

/**
 * The skeleton of an engine whose held locks live in {@link EngineLocks}: what it tells the meters, health and the
 * endpoint about them is read there, so every such engine tells it alike. The engine says where its locks are and
 * how many callers wait.
 */
public abstract class LeasedLockEngine implements InspectableLockEngine {

	/** Where this engine keeps the locks it holds. */
	protected abstract EngineLocks<?> engineLocks();

	@Override
	public final int heldCount() {
		return engineLocks().heldCount();
	}

	@Override
	public final List<HeldLockView> heldLocks() {
		return engineLocks().views();
	}

	@Override
	public final Duration renewalLag() {
		return engineLocks().renewalLag();
	}

	@Override
	public final LockEngineStatistics statistics() {
		return engineLocks().statistics();
	}

}
