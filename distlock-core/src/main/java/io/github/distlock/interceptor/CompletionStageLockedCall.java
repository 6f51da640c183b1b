package io.github.distlock.interceptor;

import java.util.concurrent.CompletionStage;

import org.jspecify.annotations.Nullable;

import io.github.distlock.OnLost;
import io.github.distlock.engine.LockRequest;
import io.github.distlock.execution.LockExecution;

/**
 * A method that returns a {@link CompletionStage} or {@link java.util.concurrent.CompletableFuture}, whose work ends
 * when that stage completes: the lock is held until then ({@link LockExecution#runStage}), and the caller receives
 * a {@link java.util.concurrent.CompletableFuture} (which is both) that completes after the release.
 */
final class CompletionStageLockedCall implements LockedCall {

	static final CompletionStageLockedCall INSTANCE = new CompletionStageLockedCall();

	private CompletionStageLockedCall() {
	}

	@Override
	@SuppressWarnings("unchecked")
	public @Nullable Object call(LockExecution execution, LockRequest request, OnLost onLost,
			LockAspectSupport.Invocation method) throws Throwable {
		return execution.runStage(request, onLost, () -> (@Nullable CompletionStage<Object>) method.proceed());
	}

}
