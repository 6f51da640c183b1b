package io.github.distlock.interceptor;

import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Holds a lock until the surrounding transaction completes, when the locked method joined one its caller started.
 * Releasing at the method's return would let the next holder in before this work is committed, so it would read
 * the state from before it.
 */
final class TransactionBoundRelease {

	/**
	 * @return {@code true} if a transaction is active on this thread and {@code release} will run after it
	 * commits or rolls back; {@code false} if the caller should release now
	 */
	boolean deferToTransaction(Runnable release) {
		if (!TransactionSynchronizationManager.isSynchronizationActive()) {
			return false;
		}
		TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {

			@Override
			public void afterCompletion(int status) {
				release.run();
			}

		});
		return true;
	}

}
