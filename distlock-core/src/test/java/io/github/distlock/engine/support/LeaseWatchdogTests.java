package io.github.distlock.engine.support;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.github.distlock.LostLock;
import io.github.distlock.engine.LockEngineStatistics;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The watchdog's own decisions, with answers the test gives by hand (the engines' suites run it against real stores):
 * an answer left waiting holds back nothing but its own locks, a lock awaiting its renewal's answer is not declared
 * lost before that answer, a renewal that failed past the lease is reported at once, and a renewer that throws does
 * not stop the watchdog.
 */
class LeaseWatchdogTests {

	private final LockEngineStatistics statistics = new LockEngineStatistics();

	private final BlockingQueue<LostLock.Reason> losses = new LinkedBlockingQueue<>();

	private final List<LeaseWatchdog<TestHandle>> watchdogs = new ArrayList<>();

	@AfterEach
	void close() {
		this.watchdogs.forEach(LeaseWatchdog::close);
	}

	@Test
	void anAnswerLeftWaitingHoldsBackNeitherTheOtherLocksNorItsOwnLockPastItsOldDeadline() throws Exception {
		Duration lease = Duration.ofSeconds(3);
		TestHandle slow = new TestHandle("slow", lease);
		TestHandle fast = new TestHandle("fast", lease);
		CompletableFuture<List<Boolean>> slowAnswer = new CompletableFuture<>();
		AtomicInteger slowSent = new AtomicInteger();
		LeaseWatchdog<TestHandle> watchdog = watchdog((handles, ttls) -> {
			List<LeaseWatchdog.AnswerPart> parts = new ArrayList<>();
			for (int i = 0; i < handles.size(); i++) {
				boolean isSlow = handles.get(i) == slow;
				if (isSlow) {
					slowSent.incrementAndGet();
				}
				parts.add(new LeaseWatchdog.AnswerPart(List.of(i),
						isSlow ? slowAnswer : CompletableFuture.completedFuture(List.of(true))));
			}
			return parts;
		});
		watchdog.watch(slow);
		watchdog.watch(fast);
		long oldDeadline = slow.leaseDeadlineNanos();
		awaitTrue(() -> System.nanoTime() - oldDeadline > TimeUnit.MILLISECONDS.toNanos(100), "the old deadline");

		assertThat(this.statistics.renewals()).as("the fast lock's renewals while the slow one waits")
			.isGreaterThanOrEqualTo(2);
		assertThat(fast.leaseDeadlineNanos() - System.nanoTime()).as("the fast lock's lease left").isPositive();
		assertThat(slowSent.get()).as("renewals sent for the slow lock").isEqualTo(1);
		assertThat(slow.isLost()).as("the slow lock, its renewal unanswered past its old deadline").isFalse();
		assertThat(this.losses).isEmpty();

		// Answered within the lease its renewal asked for, counted from when it was sent: the lock lives on.
		slowAnswer.complete(List.of(true));
		awaitTrue(() -> slow.leaseDeadlineNanos() != oldDeadline, "the slow lock's renewal settled");
		assertThat(slow.leaseDeadlineNanos() - oldDeadline).as("the slow lock's lease moved by its renewal")
			.isPositive();
		assertThat(slow.isLost()).isFalse();
		assertThat(slow.release()).isTrue();
		assertThat(fast.release()).isTrue();
		assertThat(this.losses).isEmpty();
	}

	@Test
	void aRenewalThatFailsAfterTheLeaseRanOutIsReportedOnceAsUnreachable() throws Exception {
		TestHandle handle = new TestHandle("failing", Duration.ofMillis(900));
		CompletableFuture<List<Boolean>> answer = new CompletableFuture<>();
		AtomicInteger sent = new AtomicInteger();
		LeaseWatchdog<TestHandle> watchdog = watchdog((handles, ttls) -> {
			sent.incrementAndGet();
			return List.of(new LeaseWatchdog.AnswerPart(List.of(0), answer));
		});
		watchdog.watch(handle);
		long deadline = handle.leaseDeadlineNanos();
		awaitTrue(() -> System.nanoTime() - deadline > 0, "the lease deadline");
		assertThat(sent.get()).isEqualTo(1);
		assertThat(this.losses).as("losses while the renewal's answer is awaited").isEmpty();

		answer.completeExceptionally(new IllegalStateException("no answer within the command timeout"));
		assertThat(this.losses.poll(10, TimeUnit.SECONDS)).isEqualTo(LostLock.Reason.STORE_UNREACHABLE);
		assertThat(handle.lossReason()).isEqualTo(LostLock.Reason.STORE_UNREACHABLE);
		assertThat(watchdog.watchedCount()).isZero();
		assertThat(this.statistics.renewalFailures()).isEqualTo(1);
		assertThat(this.losses).as("the loss reported once").isEmpty();
	}

	@Test
	void aRenewerThatThrowsInsteadOfAnsweringDoesNotStopTheWatchdog() throws Exception {
		TestHandle handle = new TestHandle("throwing", Duration.ofMillis(600));
		AtomicInteger calls = new AtomicInteger();
		LeaseWatchdog<TestHandle> watchdog = watchdog((handles, ttls) -> {
			if (calls.incrementAndGet() == 1) {
				throw new IllegalStateException("the store's client is closing");
			}
			return List.of(new LeaseWatchdog.AnswerPart(List.of(0), CompletableFuture.completedFuture(List.of(true))));
		});
		watchdog.watch(handle);
		awaitTrue(() -> this.statistics.renewals() >= 2, "two renewals after the failed one");
		assertThat(this.statistics.renewalFailures()).isEqualTo(1);
		assertThat(handle.isLost()).isFalse();
		assertThat(handle.release()).isTrue();
		assertThat(this.losses).isEmpty();
	}

	private LeaseWatchdog<TestHandle> watchdog(LeaseWatchdog.PartedRenewer<TestHandle> renewer) {
		LeaseWatchdog<TestHandle> watchdog = LeaseWatchdog.answeredInParts("test-watchdog", 100, renewer,
				(failure) -> false, (handle, reason) -> {
					if (handle.markLost(reason)) {
						this.losses.add(reason);
					}
				}, this.statistics);
		this.watchdogs.add(watchdog);
		return watchdog;
	}

	private static void awaitTrue(BooleanSupplier condition, String what) throws InterruptedException {
		long giveUpAt = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
		while (!condition.getAsBoolean() && System.nanoTime() - giveUpAt < 0) {
			Thread.sleep(5);
		}
		assertThat(condition.getAsBoolean()).as(what).isTrue();
	}

	/** A renewed lock with nothing in a store: the watchdog only reads and moves its lease. */
	private static final class TestHandle extends LeasedLockHandle {

		TestHandle(String key, Duration lease) {
			super("test", key, 1, System.nanoTime(), lease.toNanos(), lease.toNanos(), true, Long.MAX_VALUE);
		}

		@Override
		public boolean verify() {
			return isHeld();
		}

		@Override
		public boolean release() {
			if (!beginRelease()) {
				return false;
			}
			markReleased();
			return true;
		}

	}

}
