package io.github.distlock;

/**
 * What happens to a locked method whose lock is lost while it runs. Whatever the choice, every
 * {@link LockLostListener} is told and the loss is logged.
 */
public enum OnLost {

	/** Use {@code distlock.on-lost} (itself {@link #ROLLBACK} unless set). */
	DEFAULT,

	/**
	 * A transaction inside the locked method does not commit while the lock is lost: ownership is verified in Redis
	 * just before commit and a lost lock makes the commit fail and the transaction roll back. The call then ends with
	 * {@link LockLostException}, whether or not a transaction ran.
	 */
	ROLLBACK,

	/** As {@link #ROLLBACK}, and the thread running the method is interrupted as soon as the loss is found. */
	INTERRUPT,

	/** Only listeners, log and metrics: the method's result stands. For idempotent work. */
	IGNORE

}
