package io.github.distlock.execution;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;

import io.micrometer.observation.ObservationRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

import io.github.distlock.LockLostException;
import io.github.distlock.LostLock;
import io.github.distlock.OnLost;
import io.github.distlock.engine.LockEngine;
import io.github.distlock.engine.LockHandle;
import io.github.distlock.engine.LockRequest;
import io.github.distlock.interceptor.StubLockHandle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The claims that keep a lock held across a stage, with an engine that answers at once: a stage started under a
 * lock the thread already holds keeps it past the thread's exit, the thread's exit keeps it past the stage, and a
 * transaction keeps it past both; whoever lets go last releases, once.
 */
class LockExecutionTests {

	private final List<String> events = new CopyOnWriteArrayList<>();

	private final LockEngine engine = this::acquire;

	private final LockExecution execution = new LockExecution(() -> this.engine, () -> ObservationRegistry.NOOP);

	private static final LockRequest REQUEST = new LockRequest("orders", "1", Duration.ofSeconds(30), Duration.ZERO,
			true, null);

	@AfterEach
	void threadHoldsNothingAfterwards() {
		assertThat(HeldLocks.peek()).isNull();
	}

	@Test
	void aStageStartedInsideAHeldLockKeepsItAfterTheOuterCallExits() throws Throwable {
		CompletableFuture<String> work = new CompletableFuture<>();
		Object result = this.execution.run(REQUEST, OnLost.ROLLBACK,
				() -> this.execution.runStage(REQUEST, OnLost.ROLLBACK, () -> work));
		assertThat(this.events).containsExactly("acquired");
		work.complete("done");
		assertThat(((CompletableFuture<?>) result).join()).isEqualTo("done");
		assertThat(this.events).containsExactly("acquired", "released");
	}

	@Test
	void anOuterCallStillRunningKeepsTheLockAfterItsStageCompletes() throws Throwable {
		this.execution.run(REQUEST, OnLost.ROLLBACK, () -> {
			this.execution.runStage(REQUEST, OnLost.ROLLBACK, () -> CompletableFuture.completedFuture("done"));
			this.events.add("outer still running");
			return null;
		});
		assertThat(this.events).containsExactly("acquired", "outer still running", "released");
	}

	@Test
	void aStageStartedInATransactionReleasesWhenBothHaveEnded() throws Throwable {
		TransactionSynchronizationManager.initSynchronization();
		CompletableFuture<String> work = new CompletableFuture<>();
		try {
			this.execution.runStage(REQUEST, OnLost.ROLLBACK, () -> work);
			work.complete("done");
			assertThat(this.events).as("the transaction is still running").containsExactly("acquired");
			for (TransactionSynchronization synchronization : TransactionSynchronizationManager.getSynchronizations()) {
				synchronization.afterCompletion(TransactionSynchronization.STATUS_COMMITTED);
			}
		}
		finally {
			TransactionSynchronizationManager.clearSynchronization();
		}
		assertThat(this.events).containsExactly("acquired", "released");
	}

	@Test
	void aLockGrantedAfterItsLeaseRanOutIsReleasedAndTheWorkNeverStarts() {
		LockExecution arrivingLost = new LockExecution(() -> this::acquireLost, () -> ObservationRegistry.NOOP);
		assertThatExceptionOfType(LockLostException.class)
			.isThrownBy(() -> arrivingLost.run(REQUEST, OnLost.ROLLBACK, () -> this.events.add("work ran")))
			.satisfies((ex) -> assertThat(ex.getReason()).isEqualTo(LostLock.Reason.STORE_UNREACHABLE));
		assertThatExceptionOfType(LockLostException.class).isThrownBy(() -> arrivingLost.runStage(REQUEST,
				OnLost.INTERRUPT, () -> CompletableFuture.completedFuture(this.events.add("stage started"))));
		assertThat(this.events).containsExactly("acquired", "released", "acquired", "released");
	}

	@Test
	void aLockGrantedAfterItsLeaseRanOutRunsWorkThatIgnoresLosses() throws Throwable {
		LockExecution arrivingLost = new LockExecution(() -> this::acquireLost, () -> ObservationRegistry.NOOP);
		arrivingLost.run(REQUEST, OnLost.IGNORE, () -> this.events.add("work ran"));
		assertThat(this.events).containsExactly("acquired", "work ran", "released");
	}

	/** A grant that came after its lease had run out by the holder's clock: lost from the start. */
	private LockHandle acquireLost(LockRequest request) {
		this.events.add("acquired");
		LockHandle held = new StubLockHandle(request.name(), request.key(), () -> this.events.add("released"));
		return new LockHandle() {

			@Override
			public String name() {
				return held.name();
			}

			@Override
			public String key() {
				return held.key();
			}

			@Override
			public long token() {
				return held.token();
			}

			@Override
			public long leaseDeadlineNanos() {
				return held.leaseDeadlineNanos();
			}

			@Override
			public LostLock.Reason lossReason() {
				return LostLock.Reason.STORE_UNREACHABLE;
			}

			@Override
			public boolean verify() {
				return false;
			}

			@Override
			public void whenLost(Runnable action) {
				action.run();
			}

			@Override
			public boolean release() {
				return held.release();
			}

		};
	}

	private LockHandle acquire(LockRequest request) {
		this.events.add("acquired");
		return new StubLockHandle(request.name(), request.key(), () -> this.events.add("released"));
	}

}
