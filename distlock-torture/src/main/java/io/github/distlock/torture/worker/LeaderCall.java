package io.github.distlock.torture.worker;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.springframework.context.event.EventListener;

import io.github.distlock.LockAcquisitionException;
import io.github.distlock.leader.LeaderElections;
import io.github.distlock.leader.LeadershipGrantedEvent;

/**
 * A worker thread's call in the leader mode: waits, up to the wait time, for this worker to lead, then runs the
 * section as the leader. Woken by the grant, so that a term is at work at once: a term lost before its section started
 * would leave the checker a loss without an acquisition.
 */
final class LeaderCall implements LockedCall {

	/** The longest a missed wake-up (a grant between the look and the wait) delays the section. */
	private static final long RECHECK_MILLIS = 10;

	private final LeaderSection section;

	private final LeaderElections elections;

	private final Duration waitTime;

	private final Object grants = new Object();

	LeaderCall(LeaderSection section, LeaderElections elections, Duration waitTime) {
		this.section = section;
		this.elections = elections;
		this.waitTime = waitTime;
	}

	@EventListener
	void granted(LeadershipGrantedEvent event) {
		synchronized (this.grants) {
			this.grants.notifyAll();
		}
	}

	@Override
	public void run(Section call) {
		long deadline = System.nanoTime() + this.waitTime.toNanos();
		while (true) {
			if (this.elections.isLeader(LeaderSection.ELECTION)) {
				this.section.run(call);
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
