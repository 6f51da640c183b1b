package io.github.distlock;

import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

import io.github.distlock.engine.LockHandle;
import io.github.distlock.execution.LockExecution;

/**
 * The lock a running {@code @DistributedLock} method holds, for code that needs its fencing token or remaining
 * lease. With nested locked calls it is the innermost one; an {@code @Async} locked method sees the lock taken on
 * its own thread.
 *
 * <pre>{@code
 * long token = LockContext.current().token();
 * jdbc.update("UPDATE stock SET qty = qty - 1, last_token = ? WHERE sku = ? AND last_token < ?", token, sku, token);
 * }</pre>
 */
public final class LockContext {

	private final LockHandle handle;

	private LockContext(LockHandle handle) {
		this.handle = handle;
	}

	/**
	 * The innermost lock held by the current thread.
	 * @throws IllegalStateException if the thread runs no {@code @DistributedLock} method
	 */
	public static LockContext current() {
		return find().orElseThrow(() -> new IllegalStateException(
				"No @DistributedLock is held by this thread: LockContext.current() works inside a locked method"));
	}

	/** The innermost lock held by the current thread, if any. */
	public static Optional<LockContext> find() {
		return Optional.ofNullable(LockExecution.currentHandle()).map(LockContext::new);
	}

	/**
	 * Every lock the current thread holds, ordered by name and key: for a method whose key names several locks, one
	 * per key, each with its own token; empty outside locked methods.
	 */
	public static List<LockContext> all() {
		return LockExecution.currentHandles()
			.stream()
			.map(LockContext::new)
			.sorted(Comparator.comparing(LockContext::name).thenComparing(LockContext::key))
			.toList();
	}

	/**
	 * The context of a held lock, as template work is handed it: work may run where no thread-bound lock is visible.
	 */
	public static LockContext of(LockHandle handle) {
		return new LockContext(handle);
	}

	/** The lock's namespace. */
	public String name() {
		return this.handle.name();
	}

	/** The lock's evaluated key. */
	public String key() {
		return this.handle.key();
	}

	/**
	 * The mode the lock is held in: {@link LockMode#EXCLUSIVE}, or a side of a read/write lock. A writer's read call
	 * runs inside its write lock, so there this says {@link LockMode#WRITE}.
	 */
	public LockMode mode() {
		return this.handle.mode();
	}

	/** When positive, the call holds one of this many permits of its name and key; zero for a plain lock. */
	public int permits() {
		return this.handle.permits();
	}

	/**
	 * The fencing token of this acquisition; larger than every token issued before it for the same lock (for a
	 * read/write lock: of either side; for permits: of any of them).
	 */
	public long token() {
		return this.handle.token();
	}

	/**
	 * How long the lock is known to stay held without another renewal; negative once that time has passed.
	 */
	public Duration leaseRemaining() {
		return Duration.ofNanos(this.handle.leaseDeadlineNanos() - System.nanoTime());
	}

	/** Whether the lock has been found lost while the method runs. */
	public boolean isLost() {
		return this.handle.isLost();
	}

	@Override
	public String toString() {
		return "LockContext[name=" + name() + ", key=" + key() + ", token=" + token() + "]";
	}

}
