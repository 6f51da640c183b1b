package io.github.distlock.leader;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

import io.github.distlock.LockMode;
import io.github.distlock.LostLock;
import io.github.distlock.engine.LockHandle;

/**
 * One piece of work's share of a term's lock: the lock as the work sees it (its token is the term's epoch, its loss
 * the term's), given back rather than released. Its loss actions are its own, so that the many calls of a long term
 * do not pile theirs onto the term's lock.
 */
final class TermShare implements LockHandle {

	private final LeaderTerm term;

	/** Under this share's monitor, until the loss is told. */
	private final List<Runnable> lossActions = new ArrayList<>();

	private boolean lossTold;

	private boolean givenBack;

	TermShare(LeaderTerm term) {
		this.term = term;
	}

	@Override
	public String name() {
		return this.term.handle.name();
	}

	@Override
	public String key() {
		return this.term.handle.key();
	}

	@Override
	public LockMode mode() {
		return this.term.handle.mode();
	}

	@Override
	public long token() {
		return this.term.handle.token();
	}

	@Override
	public long leaseDeadlineNanos() {
		return this.term.handle.leaseDeadlineNanos();
	}

	@Override
	public LostLock.@Nullable Reason lossReason() {
		return this.term.handle.lossReason();
	}

	@Override
	public boolean verify() {
		return this.term.handle.verify();
	}

	/** Refused: the election renews its term's lock; work holding a share cannot lengthen or end the term. */
	@Override
	public boolean extend(Duration ttl) {
		throw new UnsupportedOperationException(refusal("extended"));
	}

	/** Refused, as {@link #extend(Duration)} is. */
	@Override
	public boolean releaseAfter(Duration ttl) {
		throw new UnsupportedOperationException(refusal("released later"));
	}

	private String refusal(String what) {
		return "The lock of leader election '" + key() + "' is renewed by the election and cannot be " + what
				+ " by the work it runs; yield the leadership to end the term";
	}

	/** Runs the action when the term's lock is found lost, or now if it has been. */
	@Override
	public void whenLost(Runnable action) {
		synchronized (this) {
			if (!this.lossTold) {
				this.lossActions.add(action);
				return;
			}
		}
		action.run();
	}

	/** The term's lock was found lost: told once, to every action registered so far. */
	void lost() {
		List<Runnable> actions;
		synchronized (this) {
			if (this.lossTold) {
				return;
			}
			this.lossTold = true;
			actions = List.copyOf(this.lossActions);
			this.lossActions.clear();
		}
		actions.forEach(Runnable::run);
	}

	/** Gives the share back to its term, once; the term's lock stays the term's to release. */
	@Override
	public boolean release() {
		synchronized (this) {
			if (this.givenBack) {
				return false;
			}
			this.givenBack = true;
		}
		this.term.giveBack(this);
		return true;
	}

	@Override
	public String toString() {
		return "a share of " + this.term.handle;
	}

}
