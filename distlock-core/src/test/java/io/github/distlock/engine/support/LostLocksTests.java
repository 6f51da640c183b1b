package io.github.distlock.engine.support;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.github.distlock.LostLock;
import io.github.distlock.engine.LockEngineStatistics;
import io.github.distlock.interceptor.StubLockHandle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNoException;

class LostLocksTests {

	private final LockEngineStatistics statistics = new LockEngineStatistics();

	@Test
	void aReportCountsTheLossAndTellsTheListenerWhichLockWhyAndWithWhichToken() {
		List<LostLock> heard = new ArrayList<>();
		LostLocks lostLocks = new LostLocks(LostLocksTests.class, this.statistics, heard::add);

		lostLocks.report(new StubLockHandle("orders", "42"), LostLock.Reason.LEASE_EXPIRED);
		lostLocks.report(new StubLockHandle("orders", "43"), LostLock.Reason.NOT_OWNED, "two of three stores lost it");

		assertThat(heard).containsExactly(new LostLock("orders", "42", 1, LostLock.Reason.LEASE_EXPIRED),
				new LostLock("orders", "43", 1, LostLock.Reason.NOT_OWNED));
		assertThat(this.statistics.lost()).isEqualTo(2);
	}

	@Test
	void aFailingListenerIsKeptFromTheEngineAndTheLossStillCounts() {
		LostLocks lostLocks = new LostLocks(LostLocksTests.class, this.statistics, (lost) -> {
			throw new IllegalStateException("listener bug");
		});

		assertThatNoException().isThrownBy(() -> lostLocks.report(new StubLockHandle("orders", "42"),
				LostLock.Reason.STORE_UNREACHABLE));
		assertThat(this.statistics.lost()).isOne();
	}

}
