package io.github.distlock.execution;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

import io.micrometer.context.ThreadLocalAccessor;
import org.jspecify.annotations.Nullable;

import io.github.distlock.execution.HeldLocks.HeldLock;

/**
 * Carries the locks a thread holds to the threads its work continues on, through Micrometer's context propagation
 * library: Spring's {@code ContextPropagatingTaskDecorator}, {@code ContextExecutorService}, {@code ContextSnapshot}
 * wrappers. Work started inside a locked method on an executor's thread then runs inside that method's locks: a
 * locked call there for the same lock enters it instead of waiting for it, and {@link io.github.distlock.LockContext}
 * sees it. Registered through {@code META-INF/services}, so it applies wherever that library is present.
 * <p>
 * Entering takes a claim on the lock, let go when the work ends, so the lock stays held until then even if the method
 * that started the work has returned. A lock released before the work begins is not entered: the work runs outside
 * it, as it would without propagation.
 */
public final class LockThreadLocalAccessor implements ThreadLocalAccessor<LockThreadLocalAccessor.Captured> {

	/** The key the accessor is registered under. */
	public static final String KEY = "io.github.distlock.locks";

	/** What each thread entered per propagation, undone in reverse order when the propagated work ends. */
	private static final ThreadLocal<Deque<List<Entered>>> ENTERED = new ThreadLocal<>();

	@Override
	public Object key() {
		return KEY;
	}

	@Override
	public @Nullable Captured getValue() {
		HeldLocks heldLocks = HeldLocks.peek();
		if (heldLocks == null || heldLocks.innermost() == null) {
			return null;
		}
		List<HeldLock> locks = new ArrayList<>(heldLocks.all());
		// The innermost one last, so that it is innermost again where the locks are entered.
		locks.remove(heldLocks.innermost());
		locks.add(heldLocks.innermost());
		return new Captured(List.copyOf(locks));
	}

	@Override
	public void setValue(Captured captured) {
		List<Entered> entered = new ArrayList<>(captured.locks.size());
		HeldLocks heldLocks = null;
		for (HeldLock held : captured.locks) {
			HeldLocks current = HeldLocks.peek();
			boolean here = current != null
					&& current.find(held.scope(), HeldLocks.identity(held.handle), held.handle.key()) != null;
			// Already this thread's (work run inline on the calling thread), or released meanwhile: nothing to enter.
			if (here || !held.tryClaim()) {
				continue;
			}
			heldLocks = HeldLocks.current();
			HeldLock view = heldLocks.borrow(held);
			entered.add(new Entered(heldLocks, view, heldLocks.enter(view)));
		}
		push(entered);
	}

	@Override
	public void setValue() {
		// Nothing was captured, so nothing is entered; recorded all the same, as the restore that follows pops.
		push(List.of());
	}

	private static void push(List<Entered> entered) {
		Deque<List<Entered>> frames = ENTERED.get();
		if (frames == null) {
			frames = new ArrayDeque<>();
			ENTERED.set(frames);
		}
		frames.push(entered);
	}

	@Override
	public void restore(Captured previous) {
		leaveLastEntered();
	}

	@Override
	public void restore() {
		leaveLastEntered();
	}

	private static void leaveLastEntered() {
		Deque<List<Entered>> frames = ENTERED.get();
		if (frames == null || frames.isEmpty()) {
			return;
		}
		List<Entered> entered = frames.pop();
		if (frames.isEmpty()) {
			ENTERED.remove();
		}
		for (int i = entered.size() - 1; i >= 0; i--) {
			Entered one = entered.get(i);
			LockExecution.leave(one.heldLocks, one.view, one.outer);
		}
	}

	/** The locks of the thread that started the work, innermost last; opaque to the propagation library. */
	public static final class Captured {

		private final List<HeldLock> locks;

		private Captured(List<HeldLock> locks) {
			this.locks = locks;
		}

	}

	private record Entered(HeldLocks heldLocks, HeldLock view, @Nullable HeldLock outer) {
	}

}
