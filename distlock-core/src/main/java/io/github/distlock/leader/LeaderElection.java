package io.github.distlock.leader;

import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import io.github.distlock.LockAcquisitionException;
import io.github.distlock.LockStoreException;
import io.github.distlock.engine.Leases;
import io.github.distlock.engine.LockEngine;
import io.github.distlock.engine.LockHandle;
import io.github.distlock.engine.LockRequest;

/**
 * This instance as a candidate in an election: it leads while it holds the election's lock ({@value #LOCK_NAME},
 * keyed by the election's name) on a distlock engine, renewed by the engine's watchdog, and each term's epoch is that
 * lock's fencing token. Exactly one instance holds the lock at a time, so at most one leads.
 * <p>
 * A thread of the election's own waits for the lock, and once granted waits for the term to end. A term ends once:
 * <ul>
 * <li><b>lost</b>: the engine found the lock lost (renewals that failed until the lease ran out by this instance's
 * clock, or the lock taken from outside). The listener hears of it as the engine does, on the engine's thread, and for
 * a lease that ran out unrenewed that is before the store lets the lock go to another instance;</li>
 * <li><b>yielded</b> ({@link #yieldLeadership()}): revoked, then released, and this instance stays out for the retry
 * pause before it stands again;</li>
 * <li><b>shut down</b> ({@link #close()}): revoked, then released; the election's thread ends.</li>
 * </ul>
 * A store that cannot be reached keeps the candidate trying again, one retry pause apart.
 */
public final class LeaderElection implements AutoCloseable {

	/** The lock name of every election: an election's lock is this name with the election's name as key. */
	public static final String LOCK_NAME = "leader";

	/** How long a candidate stays out after yielding, and waits after a failed attempt, unless given another. */
	public static final Duration DEFAULT_RETRY_PAUSE = Duration.ofSeconds(1);

	/** How long one attempt waits for the lock before the candidate asks again. */
	private static final Duration ATTEMPT = Duration.ofMinutes(1);

	private static final Log logger = LogFactory.getLog(LeaderElection.class);

	private final LockEngine engine;

	private final String election;

	private final Duration lease;

	private final Duration retryPause;

	private final LeadershipListener listener;

	private final Object lifecycle = new Object();

	private @Nullable Thread thread;

	private volatile boolean running;

	private volatile @Nullable LeaderTerm term;

	/** The last failure to stand that was logged, until an attempt succeeds; only the election's thread uses it. */
	private @Nullable String lastFailure;

	/** A candidate that stays out for {@link #DEFAULT_RETRY_PAUSE} after yielding or a failed attempt. */
	public LeaderElection(LockEngine engine, String election, Duration lease, LeadershipListener listener) {
		this(engine, election, lease, DEFAULT_RETRY_PAUSE, listener);
	}

	/**
	 * @param engine where the election's lock lives
	 * @param election the election's name, the key of its lock
	 * @param lease the lock's lease, renewed while this instance leads: how long a leader that dies keeps the others
	 * waiting
	 * @param retryPause how long the candidate stays out after yielding, and waits after an attempt that failed
	 * @param listener told of each term's start and end
	 */
	public LeaderElection(LockEngine engine, String election, Duration lease, Duration retryPause,
			LeadershipListener listener) {
		this.engine = Objects.requireNonNull(engine, "engine");
		this.election = Objects.requireNonNull(election, "election");
		this.lease = Leases.requireLease(lease, "lease");
		this.retryPause = Leases.requireLease(retryPause, "retryPause");
		this.listener = Objects.requireNonNull(listener, "listener");
		// The checks of the election's lock request, here rather than on the election's thread.
		request();
	}

	private LockRequest request() {
		return new LockRequest(LOCK_NAME, this.election, this.lease, ATTEMPT, true, null);
	}

	/** Stands for election: from now on the election's thread tries for the lock. Does nothing if already standing. */
	public void start() {
		synchronized (this.lifecycle) {
			if (this.running) {
				return;
			}
			this.running = true;
			Thread started = new Thread(this::stand, "distlock-leader-" + this.election);
			started.setDaemon(true);
			this.thread = started;
			started.start();
		}
	}

	/** Whether this instance leads now: granted a term that has not ended, and its lock not found lost. */
	public boolean isLeader() {
		LeaderTerm current = this.term;
		return current != null && current.isOn();
	}

	/** The epoch of the current term, while this instance leads. */
	public OptionalLong epoch() {
		LeaderTerm current = this.term;
		return (current != null && current.isOn()) ? OptionalLong.of(current.leadership.epoch()) : OptionalLong.empty();
	}

	/** The current term, while this instance leads. */
	public @Nullable Leadership leadership() {
		LeaderTerm current = this.term;
		return (current != null && current.isOn()) ? current.leadership : null;
	}

	/**
	 * A share of the current term's lock, for work that runs as the leader (a {@code @LeaderOnly} method): a view of
	 * the lock with its token (the term's epoch) and its loss, which the work gives back with
	 * {@link LockHandle#release()}. A term that is yielded or shut down keeps its lock until every share is back, so
	 * no other instance leads while this one's work runs; a term whose lock is lost tells every share of the loss.
	 * @return the share, or null when this instance does not lead
	 */
	public @Nullable LockHandle shareTerm() {
		LeaderTerm current = this.term;
		return (current != null && current.isOn()) ? current.share() : null;
	}

	/** The election's name. */
	public String election() {
		return this.election;
	}

	/**
	 * Gives up the current term, if this instance leads: revoked, then released, and the candidate stays out for the
	 * retry pause before it stands again.
	 * @return whether this call ended a term
	 */
	public boolean yieldLeadership() {
		LeaderTerm current = this.term;
		return current != null && current.end(LeadershipListener.Revocation.YIELDED);
	}

	/**
	 * Leaves the election: the current term, if any, is revoked and its lock released before this returns, and the
	 * election's thread ends.
	 */
	@Override
	public void close() {
		Thread stopped;
		synchronized (this.lifecycle) {
			if (!this.running) {
				return;
			}
			this.running = false;
			stopped = this.thread;
			this.thread = null;
		}
		LeaderTerm current = this.term;
		if (current != null) {
			current.end(LeadershipListener.Revocation.SHUT_DOWN);
		}
		// Closed from the election's own thread (its listener's granted), it cannot wait for itself: it ends on return.
		if (stopped != null && stopped != Thread.currentThread()) {
			stopped.interrupt();
			try {
				stopped.join(TimeUnit.SECONDS.toMillis(10));
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}
	}

	/** The election's thread: one attempt after another, and each term until it ends. */
	private void stand() {
		while (this.running) {
			LockHandle handle;
			try {
				handle = this.engine.acquire(request());
			}
			catch (InterruptedException ex) {
				// Closed (the loop ends), or a spurious interrupt (the candidate tries again).
				continue;
			}
			catch (LockAcquisitionException ex) {
				if (ex.getCause() != null) {
					// Not the lock held elsewhere (the attempt just ends and the next one waits again): no store.
					failedToStand(ex.getMessage(), null);
				}
				continue;
			}
			catch (LockStoreException ex) {
				failedToStand(ex.getMessage(), null);
				continue;
			}
			catch (RuntimeException ex) {
				failedToStand(ex.toString(), ex);
				continue;
			}
			this.lastFailure = null;
			if (handle.releaseIfLost()) {
				// Arrived after its lease ran out by this instance's clock (the store stalled, or failed over, while
				// the request was on its way): the store may already have let another candidate in, so it starts no
				// term, and no grant is told that a revocation would follow at once. The engine has reported the
				// loss; the candidate stands again.
				continue;
			}
			serve(new LeaderTerm(this.election, handle, new Leadership(this.election, handle.token(), Instant.now()),
					this.listener, () -> this.running));
		}
	}

	/** Holds one term until it ends; a yielded one is followed by the retry pause. */
	private void serve(LeaderTerm granted) {
		this.term = granted;
		if (!this.running) {
			// Closed while the lock was on its way: close() found no term to end.
			granted.end(LeadershipListener.Revocation.SHUT_DOWN);
			return;
		}
		granted.grant();
		if (granted.awaitEnd() == LeadershipListener.Revocation.YIELDED) {
			pause();
		}
	}

	/**
	 * Says why an attempt failed, once for as long as the same failure repeats (a store that refuses or is down fails
	 * every attempt alike), then waits the retry pause.
	 */
	private void failedToStand(@Nullable String why, @Nullable Throwable failure) {
		String message = "Leader election '" + this.election + "' cannot stand for its lock (trying again every "
				+ this.retryPause.toMillis() + " ms): " + why;
		if (!message.equals(this.lastFailure)) {
			this.lastFailure = message;
			logger.warn(message, failure);
		}
		pause();
	}

	private void pause() {
		try {
			Thread.sleep(this.retryPause.toMillis());
		}
		catch (InterruptedException ex) {
			// Closed: the loop ends at its next check.
		}
	}

	@Override
	public String toString() {
		return "LeaderElection '" + this.election + "' on " + this.engine;
	}

}
