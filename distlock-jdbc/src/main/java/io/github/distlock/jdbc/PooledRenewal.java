package io.github.distlock.jdbc;

import java.sql.SQLTransientConnectionException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One watchdog renewal on its way to the database, which waits for a pooled connection at most until the earliest
 * lease it carries runs out and, once it has given up, is never sent.
 * <p>
 * While the pool lends nothing (the application's own work holds every connection), no renewal reaches the
 * database, so the rows' leases run out on their own clock: the holder must hear of it at its lease deadline, not
 * when the pool's connection timeout (30 s in HikariCP by default) ends the wait. A renewal that did get its
 * connection in time is waited for to the end (its statement timeout bounds it), since it may have renewed the rows.
 */
final class PooledRenewal {

	private static final int WAITING = 0;

	private static final int SENDING = 1;

	private static final int GIVEN_UP = 2;

	private final AtomicInteger state = new AtomicInteger(WAITING);

	private final CompletableFuture<List<Boolean>> answer = new CompletableFuture<>();

	/** The earliest lease deadline among its locks: past it, the renewal is not sent. */
	private final long giveUpAtNanos;

	PooledRenewal(long giveUpAtNanos) {
		this.giveUpAtNanos = giveUpAtNanos;
	}

	/** The answer the watchdog waits for: whether each lock was still ours, or why the renewal failed. */
	CompletableFuture<List<Boolean>> answer() {
		return this.answer;
	}

	/**
	 * Asked with a connection in hand, before each statement: whether the renewal may be sent, which it may unless it
	 * gave up waiting first.
	 */
	boolean send() {
		if (this.state.get() == WAITING && System.nanoTime() - this.giveUpAtNanos >= 0) {
			// Its connection came at the deadline: the watchdog has declared those locks lost by now, or is about
			// to, whether or not the timer that gives up has run yet.
			giveUpUnlessSent();
		}
		return this.state.compareAndSet(WAITING, SENDING) || this.state.get() == SENDING;
	}

	/** At the earliest lease deadline among its locks: fails the renewal unless it is being sent. */
	void giveUpUnlessSent() {
		if (this.state.compareAndSet(WAITING, GIVEN_UP)) {
			this.answer.completeExceptionally(new SQLTransientConnectionException(
					"No pooled connection for the renewal before the lease ran out", "08001"));
		}
	}

}
