package io.github.distlock.shedlock;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;

import io.github.distlock.engine.DisplayedKey;

/**
 * A ShedLock lock held through distlock, with the fencing token of its acquisition.
 * <p>
 * As ShedLock requires, a lock is spent once unlocked or successfully extended (the extension is a new lock, with the
 * same token). One difference: a lock whose extension failed may still be unlocked, because ShedLock's
 * {@code DefaultLockingTaskExecutor} unlocks it when the job ends, and that release is what frees a lock the failed
 * extension did not lose (the store could not be reached for a moment).
 */
public final class DistLockSimpleLock implements SimpleLock {

	private enum State {

		LIVE, EXTENSION_FAILED, SPENT

	}

	private final DistLockLockProvider provider;

	private final LockRun run;

	private final LockConfiguration configuration;

	private final AtomicReference<State> state = new AtomicReference<>(State.LIVE);

	DistLockSimpleLock(DistLockLockProvider provider, LockRun run, LockConfiguration configuration) {
		this.provider = provider;
		this.run = run;
		this.configuration = configuration;
	}

	/** The fencing token of this run's acquisition: larger than every token issued before for the same lock. */
	public long token() {
		return this.run.handle.token();
	}

	/** ShedLock's name of the lock. */
	public String lockName() {
		return this.configuration.getName();
	}

	@Override
	public void unlock() {
		if (this.state.getAndSet(State.SPENT) == State.SPENT) {
			throw spent();
		}
		this.run.end();
		try {
			this.provider.unlock(this.run.handle, this.configuration);
		}
		finally {
			this.run.observed();
		}
	}

	/**
	 * Makes the lock live {@code lockAtMostFor} from now, if it is still this run's, and returns the lock to use from
	 * then on. The lease is never shortened: asked for less than it has left, the lock keeps the longer lease.
	 * @throws UnsupportedOperationException if the engine cannot extend a lock
	 */
	@Override
	public Optional<SimpleLock> extend(Duration lockAtMostFor, Duration lockAtLeastFor) {
		// Checked before anything changes: a refused configuration leaves this lock as it was.
		LockConfiguration extended = new LockConfiguration(ClockProvider.now(), this.configuration.getName(),
				lockAtMostFor, lockAtLeastFor);
		if (!this.state.compareAndSet(State.LIVE, State.SPENT)) {
			throw spent();
		}
		boolean owned;
		try {
			owned = this.run.handle.extend(DistLockLockProvider.atLeastOneMillisecond(lockAtMostFor));
		}
		catch (RuntimeException ex) {
			// Nothing was sent to the store (no extension on this engine, or a bad duration): still a live lock.
			this.state.set(State.LIVE);
			throw ex;
		}
		if (!owned) {
			this.state.set(State.EXTENSION_FAILED);
			return Optional.empty();
		}
		return Optional.of(new DistLockSimpleLock(this.provider, this.run, extended));
	}

	private IllegalStateException spent() {
		return new IllegalStateException("ShedLock lock '" + DisplayedKey.of(lockName())
				+ "' has already been unlocked or extended");
	}

	@Override
	public String toString() {
		return "ShedLock lock '" + DisplayedKey.of(lockName()) + "' token " + token();
	}

}
