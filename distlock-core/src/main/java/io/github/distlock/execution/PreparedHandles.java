package io.github.distlock.execution;

import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

import io.github.distlock.engine.LockHandle;
import io.github.distlock.engine.LockRequest;

/**
 * Locks a key set's call took together in one step, waiting on the calling thread to be taken up one by one as the
 * call enters each key's lock. Only the thread that took them sees them, and only until that call has entered them
 * all or failed: whatever is left then is released.
 */
public final class PreparedHandles {

	private static final ThreadLocal<PreparedHandles> CURRENT = new ThreadLocal<>();

	private final Object scope;

	private final List<LockHandle> handles;

	private PreparedHandles(Object scope, List<LockHandle> handles) {
		this.scope = scope;
		this.handles = new ArrayList<>(handles);
	}

	/** Offers the handles to the acquisitions the calling thread makes through this scope, until {@link #close}. */
	static PreparedHandles offer(Object scope, List<LockHandle> handles) {
		PreparedHandles prepared = new PreparedHandles(scope, handles);
		CURRENT.set(prepared);
		return prepared;
	}

	/** The prepared handle of the request's lock for this scope on this thread, taken up; or null. */
	static @Nullable LockHandle take(Object scope, LockRequest request) {
		PreparedHandles prepared = CURRENT.get();
		if (prepared == null || prepared.scope != scope) {
			return null;
		}
		for (int i = 0; i < prepared.handles.size(); i++) {
			LockHandle handle = prepared.handles.get(i);
			if (handle.key().equals(request.key()) && handle.name().equals(request.name())
					&& handle.mode() == request.mode() && handle.permits() == request.permits()) {
				if (prepared.handles.size() == 1) {
					// All taken up: nothing is left to offer to the calls the method itself makes.
					CURRENT.remove();
				}
				return prepared.handles.remove(i);
			}
		}
		return null;
	}

	/**
	 * Stops offering, and releases what was not taken up: the call failed before entering every key.
	 * @return the handles left, which the caller releases
	 */
	List<LockHandle> close() {
		CURRENT.remove();
		return this.handles;
	}

}
