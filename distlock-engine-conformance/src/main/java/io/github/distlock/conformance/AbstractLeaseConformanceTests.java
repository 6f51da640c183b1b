package io.github.distlock.conformance;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import io.github.distlock.LockAcquisitionException;
import io.github.distlock.LostLock;
import io.github.distlock.engine.LockEngine;
import io.github.distlock.engine.LockHandle;
import io.github.distlock.engine.LockRequest;
import io.github.distlock.engine.support.LeasedLockHandle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * How every {@link LockEngine}'s leases behave, run against a real store: renewal and its end, expiry, a loss found
 * and reported once, the loss actions, extensions and a release left for later. Part of
 * {@link AbstractLockEngineConformanceTests}, which engines extend.
 */
public abstract class AbstractLeaseConformanceTests extends EngineSuiteSupport {

	/** Whether the store holds the lock now, read without the engine. */
	protected abstract boolean lockExists(String name, String key);

	/** Deletes the lock in the store, as an operator or a failover would. */
	protected abstract void deleteLock(String name, String key);

	protected static LockRequest request(String key, Duration wait) {
		return new LockRequest("conformance", key, Duration.ofSeconds(10), wait, true, null);
	}

	@Test
	void theWatchdogKeepsALockPastItsLease() throws Exception {
		LockEngine engine = engine();
		// A renewal every third of the lease leaves two thirds of it for the watchdog thread to be scheduled: 300 ms
		// left too little on a 2-core machine running two builds and a torture run (load 13), where the holder lost
		// the lock (and said so). A second lease leaves 667 ms; the lock is watched for two leases.
		Duration lease = Duration.ofSeconds(1);
		LockHandle held = engine.acquire(new LockRequest("conformance", "renewed", lease, Duration.ZERO, true, null));
		// One other instance, made before the loop: a new engine per try (new clients, threads and connections each
		// time) loaded the machine enough to starve the holder's watchdog past a 300 ms lease on CI.
		LockEngine other = engine();
		long until = System.nanoTime() + lease.multipliedBy(2).toNanos();
		while (System.nanoTime() < until) {
			assertThat(lockExists("conformance", "renewed")).isTrue();
			assertThatExceptionOfType(LockAcquisitionException.class)
				.isThrownBy(() -> other.acquire(request("renewed", Duration.ZERO)));
		}
		assertThat(held.isLost()).isFalse();
		assertThat(held.release()).isTrue();
		assertThat(this.lost).isEmpty();
	}

	@Test
	void aLockWithoutRenewalExpiresWithItsLeaseAndIsReportedLost() throws Exception {
		LockEngine engine = engine();
		LockHandle held = engine.acquire(new LockRequest("conformance", "hard", Duration.ofMillis(300),
				Duration.ZERO, false, null));
		LockHandle next = engine().acquire(request("hard", Duration.ofSeconds(5)));
		try {
			assertThat(next.token()).isGreaterThan(held.token());
			assertThat(held.release()).as("a release must not remove the next holder's lock").isFalse();
			assertThat(lockExists("conformance", "hard")).isTrue();
			assertThat(awaitLoss(Duration.ofSeconds(1)).key()).isEqualTo("hard");
			assertThat(this.lost).as("reported once").isEmpty();
		}
		finally {
			next.release();
		}
	}

	@Test
	void maxLeaseEndsRenewal() throws Exception {
		LockEngine engine = engine();
		long start = System.nanoTime();
		LockHandle held = engine.acquire(new LockRequest("conformance", "capped", Duration.ofMillis(300),
				Duration.ZERO, true, Duration.ofMillis(900)));
		LockHandle next = engine().acquire(request("capped", Duration.ofSeconds(10)));
		try {
			Duration heldFor = Duration.ofNanos(System.nanoTime() - start);
			// An engine whose store keeps no time to live (ZooKeeper, etcd) ends the lock itself when its holder is told,
			// which is the store's deadline less the holder's allowance (LeasedLockHandle.allowanceNanos).
			Duration allowance = Duration.ofNanos(LeasedLockHandle.allowanceNanos(Duration.ofMillis(300).toNanos()));
			assertThat(heldFor).isGreaterThanOrEqualTo(Duration.ofMillis(900).minus(allowance))
				.isLessThan(Duration.ofMillis(2500));
			// The watchdog declares the loss at the lease deadline it computed, which the store may beat slightly.
			assertThat(awaitLoss(Duration.ofSeconds(1)).reason()).isEqualTo(LostLock.Reason.LEASE_EXPIRED);
			assertThat(held.isLost()).isTrue();
		}
		finally {
			next.release();
		}
	}

	@Test
	void aDeletedLockIsReportedLostWithinOneRenewalInterval() throws Exception {
		LockEngine engine = engine();
		LockHandle held = engine.acquire(new LockRequest("conformance", "deleted", Duration.ofMillis(600),
				Duration.ZERO, true, null));
		deleteLock("conformance", "deleted");
		// Renewal runs every sixth to third of the lease; the loss must surface at the next one.
		assertThat(awaitLoss(Duration.ofMillis(600 / 3 + 300)).reason()).isEqualTo(LostLock.Reason.NOT_OWNED);
		assertThat(held.isLost()).isTrue();
		assertThat(held.release()).isFalse();
	}

	@Test
	void verifyAsksTheStoreAndAFoundLossIsReportedOnceWithItsReason() throws Exception {
		LockEngine engine = engine();
		LockHandle held = engine.acquire(new LockRequest("conformance", "verified", Duration.ofSeconds(10),
				Duration.ZERO, true, null));
		assertThat(held.verify()).isTrue();
		assertThat(held.isLost()).isFalse();
		assertThat(held.lossReason()).isNull();
		deleteLock("conformance", "verified");
		assertThat(held.verify()).as("verify asks the store, not the lease").isFalse();
		assertThat(held.lossReason()).isEqualTo(LostLock.Reason.NOT_OWNED);
		LostLock loss = awaitLoss(Duration.ofSeconds(1));
		assertThat(loss.name()).isEqualTo("conformance");
		assertThat(loss.key()).isEqualTo("verified");
		assertThat(loss.token()).isEqualTo(held.token());
		assertThat(loss.reason()).isEqualTo(LostLock.Reason.NOT_OWNED);
		assertThat(held.verify()).isFalse();
		assertThat(this.lost).as("reported once").isEmpty();
		assertThat(held.release()).isFalse();
	}

	@Test
	void aReleasedHandleIsNeitherHeldNorLostAndVerifiesFalseWithoutAReport() throws Exception {
		LockHandle held = engine().acquire(request("released-verify", Duration.ZERO));
		assertThat(held.release()).isTrue();
		assertThat(held.verify()).isFalse();
		assertThat(held.isLost()).as("a clean release is not a loss").isFalse();
		assertThat(this.lost).isEmpty();
	}

	@Test
	void onLostActionsRunOnceWhenTheLockIsLostAndAtOnceWhenRegisteredAfter() throws Exception {
		LockEngine engine = engine();
		LockHandle held = engine.acquire(new LockRequest("conformance", "hooks", Duration.ofMillis(600),
				Duration.ZERO, true, null));
		AtomicInteger before = new AtomicInteger();
		CountDownLatch ran = new CountDownLatch(1);
		held.whenLost(() -> {
			before.incrementAndGet();
			ran.countDown();
		});
		deleteLock("conformance", "hooks");
		assertThat(ran.await(2, TimeUnit.SECONDS)).as("the action ran when the loss was found").isTrue();
		awaitLoss(Duration.ofSeconds(1));
		AtomicInteger after = new AtomicInteger();
		held.whenLost(after::incrementAndGet);
		assertThat(after.get()).as("registered after the loss: runs at once").isEqualTo(1);
		assertThat(held.verify()).isFalse();
		assertThat(before.get()).as("runs once").isEqualTo(1);
	}

	@Test
	void onLostActionsNeverRunForALockReleasedCleanly() throws Exception {
		LockEngine engine = engine();
		AtomicInteger ran = new AtomicInteger();
		for (int i = 0; i < 12; i++) {
			// Holds of 0 to 165 ms on a 300 ms lease renewed every 100 ms: some releases race a renewal.
			LockHandle held = engine.acquire(new LockRequest("conformance", "clean-" + i, Duration.ofMillis(300),
					Duration.ZERO, true, null));
			held.whenLost(ran::incrementAndGet);
			Thread.sleep(i * 15L);
			assertThat(held.release()).as("hold " + i).isTrue();
		}
		// Long enough for a renewal in flight at the last release to answer.
		Thread.sleep(150);
		assertThat(ran.get()).isZero();
		assertThat(this.lost).as("a release racing a renewal is never a loss").isEmpty();
	}

	@Test
	void anExtendedLockWithoutRenewalOutlivesItsLease() throws Exception {
		LockEngine engine = engine();
		LockHandle held = engine.acquire(new LockRequest("conformance", "extended", Duration.ofMillis(300),
				Duration.ZERO, false, null));
		assertThat(held.extend(Duration.ofSeconds(5))).isTrue();
		LockEngine other = engine();
		long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(900);
		while (System.nanoTime() < until) {
			assertThat(lockExists("conformance", "extended")).isTrue();
			assertThatExceptionOfType(LockAcquisitionException.class)
				.isThrownBy(() -> other.acquire(request("extended", Duration.ZERO)));
		}
		assertThat(held.isLost()).isFalse();
		assertThat(held.release()).isTrue();
		assertThat(this.lost).isEmpty();
	}

	@Test
	void anExtensionNeverShortensALease() throws Exception {
		LockHandle held = engine().acquire(request("long", Duration.ZERO));
		assertThat(held.extend(Duration.ofMillis(1))).isTrue();
		long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(100);
		while (System.nanoTime() < until) {
			Thread.onSpinWait();
		}
		assertThat(lockExists("conformance", "long")).isTrue();
		assertThat(held.release()).isTrue();
	}

	@Test
	void anExtensionOfAReleasedHandleIsRefusedAndNoLoss() throws Exception {
		LockEngine engine = engine();
		LockHandle held = engine.acquire(request("released", Duration.ZERO));
		assertThat(held.release()).isTrue();
		LockHandle next = engine().acquire(request("released", Duration.ZERO));
		try {
			assertThat(held.extend(Duration.ofSeconds(5))).isFalse();
			assertThat(held.isLost()).isFalse();
			assertThat(this.lost).isEmpty();
		}
		finally {
			next.release();
		}
	}

	@Test
	void anExtensionOfALockNoLongerOursIsRefusedAndReportsTheLoss() throws Exception {
		LockHandle held = engine().acquire(request("gone", Duration.ZERO));
		deleteLock("conformance", "gone");
		assertThat(held.extend(Duration.ofSeconds(5))).isFalse();
		assertThat(held.isLost()).isTrue();
		assertThat(this.lost.poll()).as("reported by the extension itself")
			.satisfies((loss) -> assertThat(loss.reason()).isEqualTo(LostLock.Reason.NOT_OWNED));
		assertThat(lockExists("conformance", "gone")).as("nothing created").isFalse();
	}

	@Test
	void anExtensionRacingWithTheReleaseIsNeverALoss() throws Exception {
		LockEngine engine = engine();
		for (int i = 0; i < 50; i++) {
			LockHandle held = engine.acquire(request("racing", Duration.ZERO));
			CountDownLatch go = new CountDownLatch(1);
			Future<?> extending = this.executor.submit(() -> {
				go.await();
				while (held.extend(Duration.ofSeconds(10))) {
					Thread.onSpinWait();
				}
				return null;
			});
			go.countDown();
			assertThat(held.release()).isTrue();
			extending.get(10, TimeUnit.SECONDS);
			assertThat(held.isLost()).isFalse();
		}
		assertThat(this.lost).isEmpty();
		assertThat(lockExists("conformance", "racing")).isFalse();
	}

	@Test
	void aLockReleasedLaterStaysHeldThatLongThenExpiresWithoutALossReport() throws Exception {
		LockEngine engine = engine();
		LockHandle held = engine.acquire(request("later", Duration.ZERO));
		boolean released;
		// The store starts the time at some moment of the call: the lock cannot be free before the call began plus
		// the time asked. Counted from when the call returned instead, it may be, by up to the call's own length.
		long asked = System.nanoTime();
		try {
			released = held.releaseAfter(Duration.ofMillis(400));
		}
		catch (UnsupportedOperationException ex) {
			// An engine without it: the handle is untouched and still releases as usual.
			assertThat(held.isLost()).isFalse();
			assertThat(held.release()).isTrue();
			return;
		}
		assertThat(released).isTrue();
		assertThat(lockExists("conformance", "later")).as("held on for the time asked").isTrue();
		assertThatExceptionOfType(LockAcquisitionException.class)
			.isThrownBy(() -> engine().acquire(request("later", Duration.ZERO)));
		LockHandle next = engine().acquire(request("later", Duration.ofSeconds(5)));
		// Less one millisecond: a store may keep the time in whole milliseconds, rounded either way.
		assertThat(Duration.ofNanos(System.nanoTime() - asked)).as("free after the time asked, not before")
			.isGreaterThanOrEqualTo(Duration.ofMillis(399));
		assertThat(held.release()).as("a handle released later is done with").isFalse();
		assertThat(next.release()).isTrue();
		assertThat(this.lost).as("expiring as asked is no loss").isEmpty();
	}

}
