package io.github.distlock.execution;

import org.jspecify.annotations.Nullable;
import reactor.util.context.Context;
import reactor.util.context.ContextView;

import io.github.distlock.engine.LockHandle;
import io.github.distlock.execution.HeldLocks.HeldLock;

/**
 * The locks a reactive pipeline runs inside, carried in its Reactor {@link Context} as a thread's locks are carried
 * by the thread: a locked method subscribed inside the pipeline of another for the same lock enters that lock rather
 * than waiting for it, and {@link io.github.distlock.ReactiveLockContext} finds the innermost one. Immutable: each
 * locked subscription adds its lock for the publishers it subscribes to.
 */
public final class CarriedLocks {

	/** The key under which a pipeline's locks are kept in its context. */
	private static final Class<CarriedLocks> KEY = CarriedLocks.class;

	private final HeldLock innermost;

	private final @Nullable CarriedLocks outer;

	private CarriedLocks(HeldLock innermost, @Nullable CarriedLocks outer) {
		this.innermost = innermost;
		this.outer = outer;
	}

	/**
	 * The innermost lock that the pipeline with this context runs inside, or null. Backs
	 * {@link io.github.distlock.ReactiveLockContext}.
	 */
	public static @Nullable LockHandle innermostHandle(ContextView context) {
		CarriedLocks locks = context.getOrDefault(KEY, null);
		return (locks != null) ? locks.innermost.handle : null;
	}

	/** The lock of that scope, name and key the pipeline runs inside, or null. */
	static @Nullable HeldLock find(ContextView context, Object scope, String name, String key) {
		for (CarriedLocks locks = context.getOrDefault(KEY, null); locks != null; locks = locks.outer) {
			if (locks.innermost.is(scope, name, key)) {
				return locks.innermost;
			}
		}
		return null;
	}

	/** The context with the lock as the innermost one. */
	static Context with(Context context, HeldLock held) {
		return context.put(KEY, new CarriedLocks(held, context.getOrDefault(KEY, null)));
	}

}
