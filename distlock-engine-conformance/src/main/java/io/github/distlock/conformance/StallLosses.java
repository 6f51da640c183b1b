package io.github.distlock.conformance;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Queue;
import java.util.concurrent.CopyOnWriteArrayList;

import org.jspecify.annotations.Nullable;

import io.github.distlock.LockLostListener;
import io.github.distlock.LostLock;
import io.github.distlock.engine.LockHandle;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The listener of an engine's stall test, and what that test checks: the store stopped answering while a lock was
 * held, and the holder's clock decided. Records when each loss was reported, and passes it on to the test's queue.
 */
public final class StallLosses implements LockLostListener {

	private final Queue<LostLock> lost;

	private final List<Long> reportedAt = new CopyOnWriteArrayList<>();

	/** @param lost where the losses go on, for the test's other checks */
	public StallLosses(Queue<LostLock> lost) {
		this.lost = lost;
	}

	@Override
	public void onLockLost(LostLock loss) {
		this.reportedAt.add(System.nanoTime());
		this.lost.add(loss);
	}

	/**
	 * The lock was reported lost as unreachable, never renewed after {@code grantedUntil} (its deadline when the store
	 * stalled), no earlier than that deadline and less than a watchdog tick (a third of the lease) after it; it says
	 * so without a round trip, and its release says lost.
	 * @param loss the first loss reported, or null if none was within the test's wait
	 */
	public void assertLostAtItsDeadline(@Nullable LostLock loss, LockHandle held, long grantedUntil, Duration lease) {
		assertThat(loss).as("the loss, reported while the store stalled").isNotNull();
		LostLock reported = Objects.requireNonNull(loss);
		assertThat(reported.key()).isEqualTo(held.key());
		assertThat(reported.token()).isEqualTo(held.token());
		assertThat(reported.reason()).isEqualTo(LostLock.Reason.STORE_UNREACHABLE);
		assertThat(held.leaseDeadlineNanos()).as("never renewed").isEqualTo(grantedUntil);
		assertThat(this.reportedAt.get(0) - grantedUntil).as("how long after the deadline the loss was reported")
			.isNotNegative()
			.isLessThan(lease.toNanos() / 3);
		assertThat(held.isLost()).isTrue();
		assertThat(held.release()).as("the release of a lost lock").isFalse();
	}

}
