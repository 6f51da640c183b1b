package io.github.distlock.execution;

import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Holds a lock until the surrounding transaction completes, when the locked method joined one its caller started.
 * Releasing at the method's return would let the next holder in before this work is committed, so it would read
 * the state from before it.
 */
final class TransactionBoundRelease {

	/** Whether a transaction is active on this thread, so a release can wait for it to complete. */
	boolean isTransactionActive() {
		return TransactionSynchronizationManager.isSynchronizationActive();
	}

	/**
	 * Runs {@code release} after the active transaction commits or rolls back.
	 * @throws IllegalStateException if no transaction is active; ask {@link #isTransactionActive()} first
	 */
	void deferToTransaction(Runnable release) {
		TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {

			@Override
			public void afterCompletion(int status) {
				release.run();
			}

		});
	}

}
