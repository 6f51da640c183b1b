package io.github.distlock.testing;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

import io.github.distlock.engine.DisplayedKey;
import io.github.distlock.engine.LockHandle;

/**
 * A lock that {@link DistLocks#take} took from its holder, held by another instance until released: its fencing token
 * is larger than the one the former holder was given. Release it, or let the end of the test method release it.
 */
public final class TakenLock implements AutoCloseable {

	private final LockHandle handle;

	private final String holder;

	private final Consumer<TakenLock> whenReleased;

	private final AtomicBoolean released = new AtomicBoolean();

	TakenLock(LockHandle handle, String holder, Consumer<TakenLock> whenReleased) {
		this.handle = handle;
		this.holder = holder;
		this.whenReleased = whenReleased;
	}

	public String name() {
		return this.handle.name();
	}

	public String key() {
		return this.handle.key();
	}

	/** The fencing token of this acquisition: larger than every token issued before it for the same lock. */
	public long token() {
		return this.handle.token();
	}

	/** The holder id stored with the lock, as {@link StoredLock#holder()} shows it. */
	public String holder() {
		return this.holder;
	}

	/**
	 * Releases the lock if this holder still owns it; never removes another holder's lock. Only the first call acts.
	 * @return whether the lock was still held by this holder and is now released
	 */
	public boolean release() {
		if (!this.released.compareAndSet(false, true)) {
			return false;
		}
		try {
			return this.handle.release();
		}
		finally {
			this.whenReleased.accept(this);
		}
	}

	/** The same as {@link #release()}. */
	@Override
	public void close() {
		release();
	}

	@Override
	public String toString() {
		return "TakenLock[name=" + name() + ", key=" + DisplayedKey.of(key()) + ", holder=" + this.holder + ", token="
				+ token() + "]";
	}

}
