package io.github.distlock.execution;

import java.lang.reflect.UndeclaredThrowableException;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

import io.github.distlock.DistributedLockTemplate;
import io.github.distlock.LockAcquisitionException;
import io.github.distlock.LockAttempt;
import io.github.distlock.LockCallback;
import io.github.distlock.LockContext;
import io.github.distlock.LockSpec;
import io.github.distlock.OnLost;
import io.github.distlock.engine.LockHandle;
import io.github.distlock.engine.LockRequest;

/**
 * The {@link DistributedLockTemplate} of an application: each call runs on the {@link LockExecution} the
 * {@code @DistributedLock} advice shares, so a template call and an annotated call behave alike by construction.
 */
public final class ExecutionLockTemplate implements DistributedLockTemplate {

	private final LockExecution execution;

	private final LockDefaults defaults;

	/**
	 * @param execution the application's lock execution, shared with the {@code @DistributedLock} advice
	 * @param defaults what a spec's unset settings take
	 */
	public ExecutionLockTemplate(LockExecution execution, LockDefaults defaults) {
		this.execution = Objects.requireNonNull(execution, "execution");
		this.defaults = Objects.requireNonNull(defaults, "defaults");
	}

	@Override
	public <T extends @Nullable Object> T execute(LockSpec spec, LockCallback<T> work) {
		Objects.requireNonNull(work, "work");
		return run(spec, work, null);
	}

	@Override
	public <T extends @Nullable Object> LockAttempt<T> tryExecute(LockSpec spec, LockCallback<T> work) {
		Objects.requireNonNull(work, "work");
		boolean[] started = new boolean[1];
		try {
			return LockAttempt.acquired(run(spec, work, started));
		}
		catch (LockAcquisitionException ex) {
			if (started[0] || ex.isStoreUnavailable() || ex.getCause() instanceof InterruptedException) {
				// Thrown by the work itself (another lock it needed), or not a busy lock.
				throw ex;
			}
			return LockAttempt.notAcquired(ex);
		}
	}

	@Override
	public <T extends @Nullable Object> @Nullable CompletionStage<T> executeAsync(LockSpec spec,
			Supplier<? extends @Nullable CompletionStage<T>> work) {
		Objects.requireNonNull(work, "work");
		try {
			return this.execution.runStage(request(spec), onLost(spec), work::get);
		}
		catch (RuntimeException | Error ex) {
			throw ex;
		}
		catch (Throwable ex) {
			throw new UndeclaredThrowableException(ex);
		}
	}

	// The execution hands back what the work returned: a T, null only where T admits null. NullAway, outside its
	// JSpecify mode, takes a type variable for non-null and so cannot see that the cast keeps T's nullness.
	@SuppressWarnings({ "unchecked", "NullAway" })
	private <T extends @Nullable Object> T run(LockSpec spec, LockCallback<T> work, boolean @Nullable [] started) {
		try {
			return (T) this.execution.run(request(spec), onLost(spec), () -> {
				if (started != null) {
					started[0] = true;
				}
				LockHandle held = LockExecution.currentHandle();
				if (held == null) {
					throw new IllegalStateException("The template's work runs outside its lock: no lock on this thread");
				}
				return work.doInLock(LockContext.of(held));
			});
		}
		catch (RuntimeException | Error ex) {
			throw ex;
		}
		catch (Throwable ex) {
			// Neither the work nor the execution throws checked exceptions; a sneaky throw is passed on wrapped.
			throw new UndeclaredThrowableException(ex);
		}
	}

	private LockRequest request(LockSpec spec) {
		Objects.requireNonNull(spec, "spec");
		Duration maxLease = (spec.maxLease() != null) ? spec.maxLease() : this.defaults.maxLease();
		return new LockRequest(spec.name(), spec.key(), orDefault(spec.lease(), this.defaults.lease()),
				orDefault(spec.waitTime(), this.defaults.waitTime()), spec.autoRenew(), maxLease, spec.mode(),
				spec.permits());
	}

	private OnLost onLost(LockSpec spec) {
		return (spec.onLost() != OnLost.DEFAULT) ? spec.onLost() : this.defaults.onLost();
	}

	private static <V> V orDefault(@Nullable V value, V fallback) {
		return (value != null) ? value : fallback;
	}

}
