package io.github.distlock.execution;

import org.jspecify.annotations.Nullable;
import org.springframework.transaction.TransactionExecution;
import org.springframework.transaction.TransactionExecutionListener;

/**
 * Puts a {@link LockOwnershipCheck} on every transaction that begins while its thread holds a lock, such as the
 * {@code @Transactional} inside a {@code @DistributedLock} method. Transaction managers learn of it through
 * {@link LockTransactionListenerRegistrar}.
 */
final class LockTransactionListener implements TransactionExecutionListener {

	@Override
	public void afterBegin(TransactionExecution transaction, @Nullable Throwable beginFailure) {
		if (beginFailure == null) {
			LockOwnershipCheck.guardCurrentTransaction(HeldLocks.peek());
		}
	}

}
