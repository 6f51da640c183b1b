package io.github.distlock.shedlock;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import io.github.distlock.engine.DisplayedKey;
import io.github.distlock.engine.LockHandle;

/**
 * Releases, at its {@code lockAtLeastUntil}, the lock of a run that ended sooner, on an engine that cannot set a held
 * lock's expiry ({@code LockHandle.releaseAfter}; the Redis and JDBC engines can).
 * <p>
 * ShedLock wants such a lock to stay held until {@code lockAtLeastUntil} and to be free from then on. Without
 * {@code releaseAfter} the lock keeps its lease ({@code lockAtMostFor}) and this process releases it when
 * {@code lockAtLeastFor} is over: never early; late only when this process cannot do it then (it stopped, or the
 * store was unreachable), and the lock then lives until its {@code lockAtMostFor}, as ShedLock's locks do when their
 * process dies during the job.
 */
final class AtLeastForReleases implements AutoCloseable {

	private static final Log logger = LogFactory.getLog(AtLeastForReleases.class);

	private final ScheduledThreadPoolExecutor scheduler;

	AtLeastForReleases() {
		// One thread, started with the first deferred release: a release is one short round trip.
		this.scheduler = new ScheduledThreadPoolExecutor(1, (runnable) -> {
			Thread thread = new Thread(runnable, "distlock-shedlock-release");
			thread.setDaemon(true);
			return thread;
		});
		this.scheduler.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
	}

	/** Releases the lock once {@code delay} has passed. */
	void releaseAfter(LockHandle handle, Duration delay, String lockName) {
		try {
			this.scheduler.schedule(() -> release(handle, lockName), delay.toNanos(), TimeUnit.NANOSECONDS);
		}
		catch (RejectedExecutionException ex) {
			logger.info("ShedLock lock '" + DisplayedKey.of(lockName) + "' ended after its provider was closed: it "
					+ "stays held until its lockAtMostFor");
		}
	}

	private static void release(LockHandle handle, String lockName) {
		try {
			// False when it was lost in the meantime: the engine has reported that.
			handle.release();
		}
		catch (RuntimeException ex) {
			logger.warn("Could not release ShedLock lock '" + DisplayedKey.of(lockName) + "' at the end of its "
					+ "lockAtLeastFor; it expires at its lockAtMostFor: " + ex.getMessage(), ex);
		}
	}

	/** Releases not yet due. */
	int pending() {
		return this.scheduler.getQueue().size();
	}

	@Override
	public void close() {
		List<Runnable> left = this.scheduler.shutdownNow();
		if (!left.isEmpty()) {
			logger.info(left.size() + " ShedLock lock(s) within their lockAtLeastFor stay held until their "
					+ "lockAtMostFor: their provider was closed before it could release them");
		}
	}

}
