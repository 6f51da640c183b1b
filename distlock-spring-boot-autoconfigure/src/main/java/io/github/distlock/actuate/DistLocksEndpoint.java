package io.github.distlock.actuate;

import java.util.List;

import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;

import io.github.distlock.engine.DisplayedKey;
import io.github.distlock.engine.HeldLockView;
import io.github.distlock.engine.InspectableLockEngine;

/**
 * The {@code distlocks} endpoint: the locks this instance holds now.
 */
@Endpoint(id = "distlocks")
public class DistLocksEndpoint {

	private final InspectableLockEngine engine;

	public DistLocksEndpoint(InspectableLockEngine engine) {
		this.engine = engine;
	}

	@ReadOperation
	public HeldLocks locks() {
		return new HeldLocks(this.engine.heldLocks().stream().map(HeldLock::of).toList());
	}

	/** The endpoint's answer. */
	public record HeldLocks(List<HeldLock> locks) {
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
