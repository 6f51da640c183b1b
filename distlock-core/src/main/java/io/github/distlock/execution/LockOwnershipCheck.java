package io.github.distlock.execution;

import java.util.List;

import org.jspecify.annotations.Nullable;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

import io.github.distlock.LockLostException;
import io.github.distlock.LostLock;
import io.github.distlock.OnLost;
import io.github.distlock.engine.LockHandle;
import io.github.distlock.execution.HeldLocks.HeldLock;

/**
 * Refuses a commit while a lock the transaction's thread holds is lost: just before commit, each such lock is
 * verified in the store, and a lost one fails the commit with {@link LockLostException}, which rolls the
 * transaction back. Locks whose method chose {@link OnLost#IGNORE} are not checked.
 */
final class LockOwnershipCheck implements TransactionSynchronization {

	private final List<LockHandle> handles;

	private LockOwnershipCheck(List<LockHandle> handles) {
		this.handles = handles;
	}

	/** Guards the current transaction with every checked lock this thread holds now. */
	static void guardCurrentTransaction(@Nullable HeldLocks heldLocks) {
		if (heldLocks == null || !TransactionSynchronizationManager.isSynchronizationActive()) {
			return;
		}
		List<LockHandle> handles = heldLocks.all()
			.stream()
			.filter((held) -> held.onLost != OnLost.IGNORE)
			.map((held) -> held.handle)
			.toList();
		if (!handles.isEmpty()) {
			TransactionSynchronizationManager.registerSynchronization(new LockOwnershipCheck(handles));
		}
	}

	/** Guards the current transaction, if any, with one lock acquired inside it. */
	static void guardCurrentTransaction(HeldLock held) {
		if (held.onLost != OnLost.IGNORE && TransactionSynchronizationManager.isSynchronizationActive()) {
			TransactionSynchronizationManager.registerSynchronization(new LockOwnershipCheck(List.of(held.handle)));
		}
	}

	@Override
	public void beforeCommit(boolean readOnly) {
		for (LockHandle handle : this.handles) {
			if (!handle.verify()) {
				// An engine may answer "not ours" without having marked the handle lost (yet): not owned, then.
				LostLock.Reason reason = handle.lossReason();
				throw new LockLostException(handle.name(), handle.key(), handle.token(),
						(reason != null) ? reason : LostLock.Reason.NOT_OWNED);
			}
		}
	}

}
