package io.github.distlock.actuate;

import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;

import io.github.distlock.engine.DisplayedKey;
import io.github.distlock.engine.HeldLockView;
import io.github.distlock.engine.InspectableLockEngine;
import io.github.distlock.leader.LeaderElections;

/**
 * The {@code distlocks} endpoint: the locks this instance holds now, and the leader elections it stands in (which it
 * leads, with the epoch and since when).
 */
@Endpoint(id = "distlocks")
public class DistLocksEndpoint {

	private final InspectableLockEngine engine;

	private final @Nullable LeaderElections elections;

	public DistLocksEndpoint(InspectableLockEngine engine) {
		this(engine, null);
	}

	/** @param elections the leader elections this instance stands in, or null for none */
	public DistLocksEndpoint(InspectableLockEngine engine, @Nullable LeaderElections elections) {
		this.engine = engine;
		this.elections = elections;
	}

	@ReadOperation
	public HeldLocks locks() {
		return new HeldLocks(this.engine.heldLocks().stream().map(HeldLock::of).toList(),
				ElectionView.of(this.elections));
	}

	/**
	 * The endpoint's answer.
	 * @param locks the locks this instance holds, an election's own lock among them while it leads
	 * @param elections the elections this instance stands in; empty without any
	 */
	public record HeldLocks(List<HeldLock> locks, List<ElectionView> elections) {
	}

	/**
	 * One held lock, with durations in milliseconds: its mode ({@code EXCLUSIVE}, or the {@code READ} or
	 * {@code WRITE} side of a read/write lock) and, for a permit, how many permits its key has (0 otherwise).
	 */
	public record HeldLock(String name, String key, String mode, int permits, long token, String holder,
			long heldForMillis, long leaseRemainingMillis) {

		static HeldLock of(HeldLockView view) {
			return new HeldLock(view.name(), DisplayedKey.of(view.key()), view.mode().name(), view.permits(),
					view.token(), view.holder(), view.heldFor().toMillis(), view.leaseRemaining().toMillis());
		}

	}

}
