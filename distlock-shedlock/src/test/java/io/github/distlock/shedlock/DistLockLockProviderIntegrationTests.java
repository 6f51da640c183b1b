package io.github.distlock.shedlock;

import static java.time.Duration.ZERO;
import static java.time.Duration.ofMillis;
import static java.time.Duration.ofSeconds;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import net.javacrumbs.shedlock.core.DefaultLockingTaskExecutor;
import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockingTaskExecutor;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.test.support.AbstractExtensibleLockProviderIntegrationTest;
import org.junit.jupiter.api.Test;

import io.github.distlock.LostLock;

/**
 * ShedLock's own provider test kit (every test of it, the fuzz test included), and what this provider adds: fencing
 * tokens, and lockAtLeastFor held to the instant. Subclasses run it on a real store.
 */
abstract class DistLockLockProviderIntegrationTests extends AbstractExtensibleLockProviderIntegrationTest {

	/** Every lock the engines report lost, for the tests that look. */
	static final List<LostLock> lost = new CopyOnWriteArrayList<>();

	/** The provider under test, one per test class. */
	protected abstract DistLockLockProvider provider();

	/** Whether the store holds the ShedLock lock of that name now, read from the store itself. */
	protected abstract boolean isLockedInStore(String lockName);

	@Override
	protected ExtensibleLockProvider getLockProvider() {
		return provider();
	}

	@Override
	protected void assertLocked(String lockName) {
		assertThat(isLockedInStore(lockName)).as("lock '%s' held in the store", lockName).isTrue();
	}

	@Override
	protected void assertUnlocked(String lockName) {
		assertThat(isLockedInStore(lockName)).as("lock '%s' held in the store", lockName).isFalse();
	}

	@Test
	void jobReadsTheTokenOfItsRunAndLaterRunsHaveLargerOnes() {
		LockingTaskExecutor executor = new DefaultLockingTaskExecutor(provider());
		List<Long> tokens = new ArrayList<>();
		for (int run = 0; run < 3; run++) {
			executor.executeWithLock((Runnable) () -> tokens.add(DistLockShedLock.currentToken().orElseThrow()),
					lockConfig(LOCK_NAME1, ofSeconds(10), ZERO));
		}
		assertThat(tokens).hasSize(3).isSorted().doesNotHaveDuplicates();
		// By name: kit tests before this one leave locks of their own held on this thread (never unlocked).
		assertThat(DistLockShedLock.currentToken(LOCK_NAME1)).isEmpty();
		assertUnlocked(LOCK_NAME1);
	}

	@Test
	void nestedJobsReadTheirOwnTokens() {
		LockingTaskExecutor executor = new DefaultLockingTaskExecutor(provider());
		String inner = LOCK_NAME1 + "-inner";
		List<OptionalLong> seen = new ArrayList<>();
		executor.executeWithLock((Runnable) () -> {
			long outer = DistLockShedLock.currentToken().orElseThrow();
			executor.executeWithLock((Runnable) () -> {
				seen.add(DistLockShedLock.currentToken());
				seen.add(DistLockShedLock.currentToken(inner));
				seen.add(DistLockShedLock.currentToken(LOCK_NAME1));
			}, lockConfig(inner, ofSeconds(10), ZERO));
			seen.add(DistLockShedLock.currentToken());
			assertThat(seen.get(2)).hasValue(outer);
			assertThat(seen.get(3)).hasValue(outer);
		}, lockConfig(LOCK_NAME1, ofSeconds(10), ZERO));
		assertThat(seen.get(0)).isEqualTo(seen.get(1)).isNotEqualTo(seen.get(2));
		assertThat(DistLockShedLock.currentToken(inner)).isEmpty();
	}

	@Test
	void simpleLockAndItsExtensionCarryTheRunsToken() {
		DistLockSimpleLock lock = (DistLockSimpleLock) provider().lock(lockConfig(LOCK_NAME1, ofSeconds(10), ZERO))
			.orElseThrow();
		assertThat(DistLockShedLock.currentToken(LOCK_NAME1)).hasValue(lock.token());
		DistLockSimpleLock extended = (DistLockSimpleLock) lock.extend(ofSeconds(20), ZERO).orElseThrow();
		assertThat(extended.token()).isEqualTo(lock.token());
		extended.unlock();
		assertThat(DistLockShedLock.currentToken(LOCK_NAME1)).isEmpty();
		assertUnlocked(LOCK_NAME1);
	}

	@Test
	void lockAtLeastForKeepsTheLockUntilLockAtLeastUntilAndNoLonger() throws InterruptedException {
		Duration atLeast = ofMillis(600);
		LockConfiguration configuration = lockConfig(LOCK_NAME1, ofSeconds(30), atLeast);
		long start = System.nanoTime();
		SimpleLock lock = provider().lock(configuration).orElseThrow();
		lock.unlock();
		assertThat(provider().lock(lockConfig(LOCK_NAME1))).isEmpty();
		while (isLockedInStore(LOCK_NAME1) && System.nanoTime() - start < TimeUnit.SECONDS.toNanos(5)) {
			Thread.sleep(5);
		}
		long heldFor = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
		assertUnlocked(LOCK_NAME1);
		// Freed at lockAtLeastUntil (counted from the configuration's creation, before start), not at lockAtMostFor.
		assertThat(heldFor).isBetween(atLeast.toMillis() - 50, atLeast.toMillis() + 1000);
		Optional<SimpleLock> next = provider().lock(lockConfig(LOCK_NAME1));
		assertThat(next).isPresent();
		next.get().unlock();
	}

	@Test
	void lockAtLeastForAsLongAsLockAtMostForEndsAtThatInstantAndIsNotReportedLost() throws InterruptedException {
		Duration both = ofMillis(400);
		long start = System.nanoTime();
		SimpleLock lock = provider().lock(lockConfig(LOCK_NAME1, both, both)).orElseThrow();
		lock.unlock();
		assertLocked(LOCK_NAME1);
		while (isLockedInStore(LOCK_NAME1) && System.nanoTime() - start < TimeUnit.SECONDS.toNanos(5)) {
			Thread.sleep(5);
		}
		assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isBetween(both.toMillis() - 50,
				both.toMillis() + 500);
		// The release came before the lease's end: no loss for a job that ended in time.
		Thread.sleep(1200);
		assertThat(lost).noneMatch((loss) -> loss.key().equals(LOCK_NAME1));
	}

	@Test
	void lockWhoseExtensionFoundItExpiredCanStillBeUnlocked() {
		SimpleLock lock = provider().lock(lockConfig(LOCK_NAME1, ofMillis(2), ZERO)).orElseThrow();
		sleepFor(ofMillis(20));
		assertThat(lock.extend(ofSeconds(10), ZERO)).isEmpty();
		// What DefaultLockingTaskExecutor does when LockExtender failed: it must not throw.
		lock.unlock();
		assertUnlocked(LOCK_NAME1);
		assertThat(lost).anyMatch((loss) -> loss.key().equals(LOCK_NAME1));
	}

}
