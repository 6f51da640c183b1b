package io.github.distlock.interceptor;

import java.time.Duration;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;

import io.github.distlock.LockAcquisitionException;
import io.github.distlock.engine.LockEngine;
import io.github.distlock.engine.LockHandle;
import io.github.distlock.engine.LockRequest;
import io.github.distlock.leader.LeaderElection;

/**
 * The "engine" of {@code @LeaderOnly} calls: it takes nothing from a store, it lends a share of the election's
 * current term, whose lock the election already holds. Where this instance does not lead, the lock is busy: another
 * instance holds it, or nobody yet.
 */
final class LeaderTermLocks implements LockEngine {

	private final Function<String, @Nullable LeaderElection> elections;

	/** @param elections the election this instance stands in by its name, or null for one it does not */
	LeaderTermLocks(Function<String, @Nullable LeaderElection> elections) {
		this.elections = elections;
	}

	/** The election's name is the request's key, as it is the key of the election's own lock. */
	@Override
	public LockHandle acquire(LockRequest request) {
		LeaderElection election = this.elections.apply(request.key());
		LockHandle share = (election != null) ? election.shareTerm() : null;
		if (share == null) {
			throw new LockAcquisitionException(request.name(), request.key(), Duration.ZERO, null);
		}
		return share;
	}

	@Override
	public String toString() {
		return "the terms of this instance's leader elections";
	}

}
