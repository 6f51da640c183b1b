package io.github.distlock.interceptor;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import io.github.distlock.DistributedLockTemplate;
import io.github.distlock.LockAcquisitionException;
import io.github.distlock.LockAttempt;
import io.github.distlock.LockCallback;
import io.github.distlock.LockContext;
import io.github.distlock.LockSpec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * What the template being an interface is for: an application's unit test stubs it, from outside distlock's API
 * package, with the public {@link LockAttempt} factories and {@link LockContext#of}, and no store behind it.
 */
class StubTemplateTests {

	/** A stub where every lock is busy: no work runs, and the caller sees the lock's name, key and wait. */
	private static final class BusyTemplate implements DistributedLockTemplate {

		@Override
		public <T extends @Nullable Object> T execute(LockSpec spec, LockCallback<T> work) {
			throw busy(spec);
		}

		@Override
		public <T extends @Nullable Object> LockAttempt<T> tryExecute(LockSpec spec, LockCallback<T> work) {
			return LockAttempt.notAcquired(busy(spec));
		}

		@Override
		public <T extends @Nullable Object> @Nullable CompletionStage<T> executeAsync(LockSpec spec,
				Supplier<? extends @Nullable CompletionStage<T>> work) {
			throw busy(spec);
		}

		private static LockAcquisitionException busy(LockSpec spec) {
			return new LockAcquisitionException(spec.name(), spec.key(), Duration.ZERO, null);
		}

	}

	/** A stub where every lock is free: the work runs at once with a context of a stub handle. */
	private static final class FreeTemplate implements DistributedLockTemplate {

		@Override
		public <T extends @Nullable Object> T execute(LockSpec spec, LockCallback<T> work) {
			return work.doInLock(LockContext.of(new StubLockHandle(spec.name(), spec.key())));
		}

		@Override
		public <T extends @Nullable Object> LockAttempt<T> tryExecute(LockSpec spec, LockCallback<T> work) {
			return LockAttempt.acquired(execute(spec, work));
		}

		@Override
		public <T extends @Nullable Object> @Nullable CompletionStage<T> executeAsync(LockSpec spec,
				Supplier<? extends @Nullable CompletionStage<T>> work) {
			return CompletableFuture.completedStage(null).thenCompose((ignored) -> work.get());
		}

	}

	@Test
	void aBusyStubRunsNoWorkAndSaysWhichLockWasBusy() {
		AtomicInteger ran = new AtomicInteger();
		LockAttempt<Integer> attempt = new BusyTemplate().tryExecute(LockSpec.of("orders", "42"),
				(lock) -> ran.incrementAndGet());
		assertThat(attempt.isAcquired()).isFalse();
		assertThat(attempt.lockName()).isEqualTo("orders");
		assertThat(attempt.lockKey()).isEqualTo("42");
		assertThat(attempt.orElse(-1)).isEqualTo(-1);
		assertThatExceptionOfType(LockAcquisitionException.class).isThrownBy(attempt::result);
		assertThat(ran).hasValue(0);
	}

	@Test
	void aFreeStubRunsTheWorkWithTheLocksContext() {
		LockAttempt<String> attempt = new FreeTemplate().tryExecute(LockSpec.of("orders", "42"),
				(lock) -> lock.name() + ":" + lock.key());
		assertThat(attempt.isAcquired()).isTrue();
		assertThat(attempt.result()).isEqualTo("orders:42");
	}

}
