package io.github.distlock.leader;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.BooleanSupplier;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import io.github.distlock.engine.LockHandle;

/**
 * One term of a {@link LeaderElection}: granted once, ended once, whichever way comes first. Its lock is released
 * only after the revocation has been told and every share of it lent to work running as the leader has come back.
 */
final class LeaderTerm {

	private static final Log logger = LogFactory.getLog(LeaderElection.class);

	private final String election;

	final LockHandle handle;

	final Leadership leadership;

	private final LeadershipListener listener;

	/** Whether the election still runs; its close() ends the wait for this term's end. */
	private final BooleanSupplier electionRuns;

	/** How the term ended; written under this term's monitor, read without it. */
	private volatile LeadershipListener.@Nullable Revocation ended;

	private boolean granted;

	/** Whether the end has been told and the lock released; under this term's monitor. */
	private boolean over;

	/** The shares of the lock not given back yet; under this term's monitor. */
	private final Set<TermShare> shares = new HashSet<>();

	/** Whether the lock is to be released as the last share comes back; under this term's monitor. */
	private boolean releaseWithLastShare;

	/** Whether the lock's loss has been seen: no share is lent after that; under this term's monitor. */
	private boolean lost;

	LeaderTerm(String election, LockHandle handle, Leadership leadership, LeadershipListener listener,
			BooleanSupplier electionRuns) {
		this.election = election;
		this.handle = handle;
		this.leadership = leadership;
		this.listener = listener;
		this.electionRuns = electionRuns;
	}

	/**
	 * Tells the listener, then watches the lock: a loss found before this is told at once, after the grant.
	 */
	void grant() {
		synchronized (this) {
			if (this.ended != null) {
				return;
			}
			this.granted = true;
		}
		tellListener("granted", () -> this.listener.granted(this.leadership));
		this.handle.whenLost(this::lost);
	}

	/**
	 * Whether the term runs. Not under the term's monitor: asking the handle may report its loss there and then,
	 * under the handle's own lock, whose loss actions end this term under the monitor.
	 */
	boolean isOn() {
		return this.ended == null && !this.handle.isLost();
	}

	/** The lock was found lost: the work holding shares hears of it first, then the listener. */
	private void lost() {
		List<TermShare> told;
		synchronized (this) {
			this.lost = true;
			told = List.copyOf(this.shares);
		}
		told.forEach(TermShare::lost);
		end(LeadershipListener.Revocation.LOST);
	}

	/** A share of the lock for work running as the leader, or null once the term has ended. */
	@Nullable TermShare share() {
		TermShare share = new TermShare(this);
		synchronized (this) {
			if (this.ended != null || this.lost) {
				return null;
			}
			this.shares.add(share);
		}
		return share;
	}

	/** A share given back: the last one releases the lock of a term that ended meanwhile (not lost). */
	void giveBack(TermShare share) {
		synchronized (this) {
			if (!this.shares.remove(share) || !this.shares.isEmpty() || !this.releaseWithLastShare) {
				return;
			}
			this.releaseWithLastShare = false;
		}
		release();
		finish();
	}

	/**
	 * Ends the term once: tells the listener (if it was granted), then, unless the lock was lost, releases it once
	 * every share is back; only then may the election's thread stand again, so the next term's grant never comes
	 * before this revocation, nor while this term's work runs.
	 * @return whether this call ended it
	 */
	boolean end(LeadershipListener.Revocation reason) {
		boolean tell;
		synchronized (this) {
			if (this.ended != null) {
				return false;
			}
			this.ended = reason;
			tell = this.granted;
		}
		try {
			if (tell) {
				tellListener("revoked (" + reason + ")", () -> this.listener.revoked(this.leadership, reason));
			}
		}
		finally {
			if (reason == LeadershipListener.Revocation.LOST) {
				finish();
			}
			else {
				releaseOnceSharesAreBack();
			}
		}
		return true;
	}

	private void releaseOnceSharesAreBack() {
		synchronized (this) {
			if (!this.shares.isEmpty()) {
				this.releaseWithLastShare = true;
				return;
			}
		}
		release();
		finish();
	}

	/** The end has been told and the lock released (or lost): the election's thread may stand again. */
	private synchronized void finish() {
		this.over = true;
		notifyAll();
	}

	private void release() {
		try {
			this.handle.release();
		}
		catch (RuntimeException ex) {
			logger.warn("Leader election '" + this.election + "' could not release its lock; it expires with its "
					+ "lease: " + ex.getMessage());
		}
	}

	/**
	 * Waits until the term has ended, its end has been told and its lock released; or until the election closes,
	 * which ends the term.
	 */
	LeadershipListener.Revocation awaitEnd() {
		synchronized (this) {
			while (!this.over && this.electionRuns.getAsBoolean()) {
				try {
					wait();
				}
				catch (InterruptedException ex) {
					// close() interrupts: the loop sees that the election no longer runs.
				}
			}
		}
		end(LeadershipListener.Revocation.SHUT_DOWN);
		LeadershipListener.Revocation reason = this.ended;
		return (reason != null) ? reason : LeadershipListener.Revocation.SHUT_DOWN;
	}

	private void tellListener(String what, Runnable call) {
		try {
			call.run();
		}
		catch (RuntimeException ex) {
			logger.warn("A LeadershipListener failed when told that leader election '" + this.election + "' was "
					+ what, ex);
		}
	}

}
