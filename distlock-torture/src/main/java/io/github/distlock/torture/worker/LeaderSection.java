package io.github.distlock.torture.worker;

import java.util.function.LongConsumer;

import io.github.distlock.LockContext;
import io.github.distlock.leader.LeaderElections;
import io.github.distlock.leader.LeaderOnly;

/**
 * The leader's work, as an application would write it: a bean's public method that runs only on the instance that
 * leads {@link #ELECTION}, with the term's epoch as its fencing token. Each section yields the term once it is done,
 * so that the next section may run on another worker under a larger epoch.
 */
public class LeaderSection {

	/** The election the workers stand in; the key of its lock, and of every section in the histories. */
	public static final String ELECTION = "torture";

	private final SectionBody body;

	private final LeaderElections elections;

	public LeaderSection(SectionBody body, LeaderElections elections) {
		this.body = body;
		this.elections = elections;
	}

	/**
	 * Skipped, the section left untouched, when this worker does not lead.
	 * @param working told the term's epoch before the section records that it holds the lock
	 */
	@LeaderOnly(ELECTION)
	public void run(Section section, LongConsumer working) {
		try {
			long epoch = LockContext.current().token();
			working.accept(epoch);
			this.body.run(section, epoch);
		}
		finally {
			// Revoked at once; the term's lock goes only when this share is back, after the method returns.
			this.elections.yieldLeadership(ELECTION);
		}
	}

}
