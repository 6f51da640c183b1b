package io.github.distlock.engine.support;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.ReentrantLock;

import org.jspecify.annotations.Nullable;

import io.github.distlock.LostLock;

/**
 * The life of one lock handle, from held to released or lost, and the actions that run when it is lost: what every
 * handle shares, whatever holds its lock ({@link LeasedLockHandle} for one store, or a lock made of several).
 * <p>
 * A handle leaves the held state before its release is sent, so an answer about it that arrives while the release is
 * on its way cannot be taken for a loss: only a held handle can become lost, apart from a release that itself finds
 * the lock taken.
 * <p>
 * A loss is marked and reported under the handle's reporting lock ({@link #lose}), so that any other thread that
 * finds the lock lost can wait for the report ({@link #awaitLossReport()}): an answer "not held" never overtakes it.
 */
public final class HandleLife {

	private enum State {

		HELD, RELEASING, RELEASED, LOST

	}

	private final AtomicReference<State> state = new AtomicReference<>(State.HELD);

	private final List<Runnable> lossActions = new CopyOnWriteArrayList<>();

	/** Held while a loss is marked and reported. */
	private final ReentrantLock reporting = new ReentrantLock();

	/** Set once, by the thread that moved the state to LOST, just after it did. */
	private volatile LostLock.@Nullable Reason lossReason;

	/** Whether the owner holds the lock: neither releasing it, nor released, nor lost. */
	public boolean isHeld() {
		return this.state.get() == State.HELD;
	}

	/**
	 * Whether the lock is lost. Read from the reason, not the state: between the state's move to LOST and the reason's
	 * write, a lock lost by the state would have no reason yet, and a caller that saw it lost would read null.
	 */
	public boolean isLost() {
		return this.lossReason != null;
	}

	/** How the lock was lost, or null while it is not. */
	public LostLock.@Nullable Reason lossReason() {
		return this.lossReason;
	}

	/** Runs the action once if the lock is lost while held; at once if it already is. */
	public void whenLost(Runnable action) {
		this.lossActions.add(action);
		if (isLost() && this.lossActions.remove(action)) {
			action.run();
		}
	}

	/**
	 * Moves a held handle to lost, runs its loss actions and then {@code report}, all under the reporting lock. A
	 * handle its owner is releasing or has released is left alone: whatever the store says of it now is the
	 * release's doing.
	 * @return whether this call did so (so the loss is reported once)
	 */
	public boolean lose(LostLock.Reason reason, Runnable report) {
		return moveToLost(State.HELD, reason, report);
	}

	/**
	 * Waits, if the lock is lost, until its loss has been reported (by whichever thread found it): a caller about to
	 * answer "not held" does not answer before the application has heard.
	 */
	public void awaitLossReport() {
		if (isLost()) {
			this.reporting.lock();
			this.reporting.unlock();
		}
	}

	/**
	 * Starts the owner's release: from now on no renewal, check or expiry counts as a loss.
	 * @return false when the handle is not held (already lost, or released before)
	 */
	public boolean beginRelease() {
		return this.state.compareAndSet(State.HELD, State.RELEASING);
	}

	/** The release went through (or ended without telling, and the lock expires by itself). */
	public void markReleased() {
		this.state.compareAndSet(State.RELEASING, State.RELEASED);
	}

	/**
	 * The release found the lock no longer this holder's: it was lost before the release, while the work ran. Marked
	 * and reported as {@link #lose} does.
	 * @return whether this call moved the handle to lost
	 */
	public boolean loseAtRelease(LostLock.Reason reason, Runnable report) {
		return moveToLost(State.RELEASING, reason, report);
	}

	private boolean moveToLost(State from, LostLock.Reason reason, Runnable report) {
		this.reporting.lock();
		try {
			if (!this.state.compareAndSet(from, State.LOST)) {
				return false;
			}
			this.lossReason = reason;
			for (Runnable action : this.lossActions) {
				if (this.lossActions.remove(action)) {
					action.run();
				}
			}
			report.run();
			return true;
		}
		finally {
			this.reporting.unlock();
		}
	}

}
