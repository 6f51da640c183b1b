package io.github.distlock.shedlock;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Iterator;
import java.util.OptionalLong;

import org.jspecify.annotations.Nullable;

/**
 * The fencing token of the ShedLock run in progress, for the job to hand to the systems it writes to, so that they
 * can refuse a write from a run whose lock has since passed to another (it outlived its {@code lockAtMostFor}, or was
 * lost).
 *
 * <pre>{@code
 * @Scheduled(cron = "0 * * * * *")
 * @SchedulerLock(name = "report", lockAtMostFor = "5m")
 * void report() {
 *     long token = DistLockShedLock.currentToken().orElseThrow();
 *     reports.publish(build(), token);   // the store keeps the highest token it has seen and refuses lower ones
 * }
 * }</pre>
 *
 * Like ShedLock's own {@code LockAssert} and {@code LockExtender}, this reads the locks taken on the current thread,
 * which is where {@code @SchedulerLock} and {@code DefaultLockingTaskExecutor} run the job.
 */
public final class DistLockShedLock {

	/** The runs started on this thread and not yet ended, innermost last. */
	private static final ThreadLocal<Deque<LockRun>> RUNS = new ThreadLocal<>();

	private DistLockShedLock() {
	}

	/** The token of the innermost lock this thread holds through {@link DistLockLockProvider}; empty when none. */
	public static OptionalLong currentToken() {
		return find(null);
	}

	/** The token of the innermost lock of that ShedLock name this thread holds; empty when none. */
	public static OptionalLong currentToken(String lockName) {
		return find(lockName);
	}

	/** The token of the innermost run of that ShedLock name, or of any run when the name is null. */
	private static OptionalLong find(@Nullable String lockName) {
		Deque<LockRun> runs = RUNS.get();
		if (runs == null) {
			return OptionalLong.empty();
		}
		for (Iterator<LockRun> innermostFirst = runs.descendingIterator(); innermostFirst.hasNext();) {
			LockRun run = innermostFirst.next();
			if (run.ended()) {
				// Unlocked on another thread: that thread could not remove it from here.
				innermostFirst.remove();
			}
			else if (lockName == null || run.lockName.equals(lockName)) {
				return OptionalLong.of(run.handle.token());
			}
		}
		forgetIfEmpty(runs);
		return OptionalLong.empty();
	}

	static void started(LockRun run) {
		Deque<LockRun> runs = RUNS.get();
		if (runs == null) {
			runs = new ArrayDeque<>();
			RUNS.set(runs);
		}
		// Runs unlocked on other threads would otherwise pile up on a thread that locks again and again.
		runs.removeIf(LockRun::ended);
		runs.addLast(run);
	}

	static void ended(LockRun run) {
		Deque<LockRun> runs = RUNS.get();
		if (runs != null) {
			runs.removeLastOccurrence(run);
			forgetIfEmpty(runs);
		}
	}

	/** A pooled scheduler thread keeps no map entry for a job that is over. */
	private static void forgetIfEmpty(Deque<LockRun> runs) {
		if (runs.isEmpty()) {
			RUNS.remove();
		}
	}

}
