package io.github.distlock.torture.worker;

import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.springframework.context.event.EventListener;

import io.github.distlock.LockAcquisitionException;
import io.github.distlock.LockLostListener;
import io.github.distlock.LostLock;
import io.github.distlock.leader.LeaderElection;
import io.github.distlock.leader.LeaderElections;
import io.github.distlock.leader.LeadershipGrantedEvent;

/**
 * A worker thread's call in the leader mode: waits, up to the wait time, for this worker to lead, then runs the
 * section as the leader. Woken by the grant, so that a term is at work at once.
 * <p>
 * A term can still be lost with no section in it: granted with its lease already run out (the engine reports the
 * loss and the election starts no term), or lost between its grant and its section. Such a loss is recorded as a
 * grant lost on arrival, so that the checker can match the library's report to a lock this worker held, from its
 * grant (or, for one never granted, from a lease before the report: its lease ran out on the way).
 */
final class LeaderCall implements LockedCall, LockLostListener {

	/** The longest a missed wake-up (a grant between the look and the wait) delays the section. */
	private static final long RECHECK_MILLIS = 10;

	/** Terms that ran no section are numbered apart from the worker's calls. */
	private static final long FIRST_UNUSED_TERM = 1_000_000_000L;

	private final LeaderSection section;

	private final LeaderElections elections;

	private final WorkerHistory history;

	private final Duration waitTime;

	private final Duration lease;

	private final Object grants = new Object();

	/** When each term was granted, by epoch. */
	private final Map<Long, Long> grantedAt = new ConcurrentHashMap<>();

	/** The epochs of the terms a section ran in. */
	private final Set<Long> worked = ConcurrentHashMap.newKeySet();

	private final AtomicLong unusedTerms = new AtomicLong(FIRST_UNUSED_TERM);

	LeaderCall(LeaderSection section, LeaderElections elections, WorkerHistory history, Duration waitTime,
			Duration lease) {
		this.section = section;
		this.elections = elections;
		this.history = history;
		this.waitTime = waitTime;
		this.lease = lease;
	}

	@EventListener
	void granted(LeadershipGrantedEvent event) {
		this.grantedAt.put(event.getLeadership().epoch(), System.nanoTime());
		synchronized (this.grants) {
			this.grants.notifyAll();
		}
	}

	@Override
	public void onLockLost(LostLock lost) {
		if (!LeaderElection.LOCK_NAME.equals(lost.name()) || this.worked.contains(lost.token())) {
			return;
		}
		long now = System.nanoTime();
		Long granted = this.grantedAt.get(lost.token());
		this.history.termLostUnused(this.unusedTerms.incrementAndGet(),
				(granted != null) ? granted : now - this.lease.toNanos(), lost);
	}

	@Override
	public void run(Section call) {
		long deadline = System.nanoTime() + this.waitTime.toNanos();
		while (true) {
			if (this.elections.isLeader(LeaderSection.ELECTION)) {
				this.section.run(call, this.worked::add);
				if (call.acquired()) {
					return;
				}
			}
			long left = deadline - System.nanoTime();
			if (left <= 0) {
				throw new LockAcquisitionException("leader", LeaderSection.ELECTION, this.waitTime, null);
			}
			synchronized (this.grants) {
				try {
					this.grants.wait(Math.max(1, Math.min(RECHECK_MILLIS, TimeUnit.NANOSECONDS.toMillis(left))));
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
					throw new IllegalStateException("Interrupted while waiting to lead", ex);
				}
			}
		}
	}

}
