package io.github.distlock.execution;

import io.micrometer.observation.Observation;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.github.distlock.OnLost;
import io.github.distlock.execution.HeldLocks.HeldLock;
import io.github.distlock.interceptor.StubLockHandle;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A thread's held locks: found again by scope, name and key; the innermost one follows the nesting of calls; the
 * thread-local goes with the last lock.
 */
class HeldLocksTests {

	private final Object scope = new Object();

	@AfterEach
	void threadHoldsNothingAfterwards() {
		assertThat(HeldLocks.peek()).isNull();
	}

	@Test
	void aNestedCallToTheSameLockReentersIt() {
		HeldLocks locks = HeldLocks.current();
		HeldLock held = locks.add(this.scope, new StubLockHandle("orders", "42"), OnLost.ROLLBACK, Observation.NOOP);
		HeldLock outside = locks.enter(held);

		assertThat(locks.find(this.scope, "orders", "42")).isSameAs(held);
		HeldLock outsideNested = locks.enter(held);
		assertThat(outsideNested).isSameAs(held);
		assertThat(locks.innermost()).isSameAs(held);
		assertThat(locks.all()).containsExactly(held);

		assertThat(locks.exit(held, outsideNested)).as("last hold after the nested call").isFalse();
		assertThat(locks.innermost()).isSameAs(held);
		assertThat(locks.exit(held, outside)).as("last hold after the outer call").isTrue();
		assertThat(locks.innermost()).isNull();
		locks.forget(held);
	}

	@Test
	void theThreadLocalGoesWithTheLastLock() {
		HeldLocks locks = HeldLocks.current();
		assertThat(HeldLocks.peek()).isSameAs(locks);
		HeldLock held = locks.add(this.scope, new StubLockHandle("orders", "42"), OnLost.ROLLBACK, Observation.NOOP);
		locks.exit(held, locks.enter(held));
		assertThat(HeldLocks.peek()).isSameAs(locks);

		locks.forget(held);

		assertThat(HeldLocks.peek()).isNull();
		assertThat(locks.find(this.scope, "orders", "42")).isNull();
		assertThat(locks.all()).isEmpty();
	}

	@Test
	void twoDistinctLocksAreBothHeldAndTheInnermostFollowsTheCalls() {
		HeldLocks locks = HeldLocks.current();
		HeldLock first = locks.add(this.scope, new StubLockHandle("orders", "1"), OnLost.ROLLBACK, Observation.NOOP);
		HeldLock outsideFirst = locks.enter(first);
		assertThat(locks.find(this.scope, "orders", "2")).isNull();
		HeldLock second = locks.add(this.scope, new StubLockHandle("orders", "2"), OnLost.IGNORE, Observation.NOOP);
		HeldLock outsideSecond = locks.enter(second);
		// The first lock again, inside the second: A, B, A.
		HeldLock outsideThird = locks.enter(locks.find(this.scope, "orders", "1"));

		assertThat(locks.innermost()).isSameAs(first);
		assertThat(locks.all()).containsExactlyInAnyOrder(first, second);
		assertThat(locks.find(this.scope, "orders", "2")).isSameAs(second);

		assertThat(locks.exit(first, outsideThird)).isFalse();
		assertThat(locks.innermost()).isSameAs(second);
		assertThat(locks.exit(second, outsideSecond)).isTrue();
		locks.forget(second);
		assertThat(locks.innermost()).isSameAs(first);
		assertThat(locks.find(this.scope, "orders", "2")).isNull();
		assertThat(locks.find(this.scope, "orders", "1")).isSameAs(first);
		assertThat(locks.all()).containsExactly(first);
		assertThat(HeldLocks.peek()).isSameAs(locks);

		assertThat(locks.exit(first, outsideFirst)).isTrue();
		locks.forget(first);
	}

	@Test
	void locksAreToldApartByScopeNameAndKey() {
		HeldLocks locks = HeldLocks.current();
		HeldLock held = locks.add(this.scope, new StubLockHandle("orders", "42"), OnLost.ROLLBACK, Observation.NOOP);

		assertThat(locks.find(new Object(), "orders", "42")).isNull();
		assertThat(locks.find(this.scope, "invoices", "42")).isNull();
		assertThat(locks.find(this.scope, "orders", "43")).isNull();
		assertThat(locks.find(this.scope, "orders", new String("42"))).isSameAs(held);
		locks.forget(held);
	}

	@Test
	void aLockWhoseReleaseWaitsKeepsTheThreadLocalUntilForgotten() {
		HeldLocks locks = HeldLocks.current();
		HeldLock held = locks.add(this.scope, new StubLockHandle("orders", "42"), OnLost.ROLLBACK, Observation.NOOP);
		assertThat(locks.exit(held, locks.enter(held))).isTrue();
		held.holds++;

		assertThat(HeldLocks.peek()).isSameAs(locks);
		assertThat(locks.all()).containsExactly(held);
		assertThat(locks.innermost()).isNull();

		held.holds--;
		locks.forget(held);
	}

	@Test
	void forgettingAReplacedLockLeavesItsReplacement() {
		HeldLocks locks = HeldLocks.current();
		HeldLock stale = locks.add(this.scope, new StubLockHandle("orders", "42"), OnLost.ROLLBACK, Observation.NOOP);
		HeldLock fresh = locks.add(this.scope, new StubLockHandle("orders", "42"), OnLost.ROLLBACK, Observation.NOOP);

		locks.forget(stale);

		assertThat(locks.find(this.scope, "orders", "42")).isSameAs(fresh);
		locks.forget(fresh);
	}

}
