package io.github.distlock.engine.support;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import io.github.distlock.LockLostListener;
import io.github.distlock.LostLock;
import io.github.distlock.engine.LockEngineStatistics;
import io.github.distlock.engine.LockHandle;

/**
 * Where an engine tells of a lock it lost, and the only place: counts the loss, warns in the engine's log, and calls
 * the application's {@link LockLostListener}, whose failure is logged and goes no further (the engine's own work,
 * such as freeing the lock for others, must go on). An engine decides whether a loss is one, and reports each once;
 * what a report says and does is written here.
 */
public final class LostLocks {

	/** What a loss means for the application, said with every report. */
	private static final String CONSEQUENCE = "the work it protects may have run unprotected";

	private final Log logger;

	private final LockEngineStatistics statistics;

	private final LockLostListener listener;

	/**
	 * @param engine the engine whose log the warnings go to
	 * @param statistics where losses are counted
	 * @param listener the application's listener
	 */
	public LostLocks(Class<?> engine, LockEngineStatistics statistics, LockLostListener listener) {
		this.logger = LogFactory.getLog(engine);
		this.statistics = statistics;
		this.listener = listener;
	}

	/** Reports a lost lock. */
	public void report(LockHandle lock, LostLock.Reason reason) {
		report(lock, reason, null);
	}

	/**
	 * Reports a lost lock, with what the engine knows of how it was lost.
	 * @param how said after the reason, such as which of several stores no longer hold the lock; may be null
	 */
	public void report(LockHandle lock, LostLock.Reason reason, @Nullable String how) {
		this.statistics.countLoss();
		this.logger.warn("Lost " + lock + " (" + reason + "): " + ((how != null) ? how + "; " : "") + CONSEQUENCE);
		try {
			this.listener.onLockLost(new LostLock(lock.name(), lock.key(), lock.token(), reason));
		}
		catch (RuntimeException ex) {
			this.logger.warn("A LockLostListener failed for " + lock, ex);
		}
	}

}
