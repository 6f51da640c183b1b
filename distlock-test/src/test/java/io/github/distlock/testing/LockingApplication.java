package io.github.distlock.testing;

import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;

import io.github.distlock.DistributedLock;
import io.github.distlock.LockContext;
import io.github.distlock.LockLostListener;
import io.github.distlock.LostLock;
import io.github.distlock.OnLost;

/**
 * A small application with locked methods that wait for the test, and a listener that records lost locks. No
 * component scan, so that the test configurations next to it stay out.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
class LockingApplication {

	@Bean
	LockedWork lockedWork() {
		return new LockedWork();
	}

	@Bean
	LostLocks lostLocks() {
		return new LostLocks();
	}

	/** Locked methods that stay inside their lock until the test lets them go. */
	static class LockedWork {

		/** Holds lock ("job", key) until {@link HeldCall#finish()}; renewed every third of its 2 s lease. */
		@DistributedLock(name = "job", key = "#key", lease = "2s")
		public void hold(String key, HeldCall call) throws InterruptedException {
			call.enter();
		}

		/** Holds lock ("job", key) until the thread is interrupted, which a loss does ({@link OnLost#INTERRUPT}). */
		@DistributedLock(name = "job", key = "#key", lease = "900ms", onLost = OnLost.INTERRUPT)
		public void holdUntilInterrupted(String key, HeldCall call) throws InterruptedException {
			call.enterUntilInterrupted();
		}

	}

	/** A call inside its lock: tells the test it entered and with which token, and waits for the test. */
	static final class HeldCall {

		private final CountDownLatch entered = new CountDownLatch(1);

		private final CountDownLatch finish = new CountDownLatch(1);

		private volatile long token;

		void enter() throws InterruptedException {
			this.token = LockContext.current().token();
			this.entered.countDown();
			if (!this.finish.await(30, TimeUnit.SECONDS)) {
				throw new IllegalStateException("The test never let the call finish");
			}
		}

		void enterUntilInterrupted() throws InterruptedException {
			this.token = LockContext.current().token();
			this.entered.countDown();
			// Only an interrupt ends this wait in time; nothing counts the latch down.
			new CountDownLatch(1).await(30, TimeUnit.SECONDS);
		}

		/** Waits until the call is inside its lock, and returns the lock's fencing token. */
		long awaitEntered() throws InterruptedException {
			if (!this.entered.await(10, TimeUnit.SECONDS)) {
				throw new AssertionError("The locked call did not start within 10 s");
			}
			return this.token;
		}

		void finish() {
			this.finish.countDown();
		}

	}

	/** Every lost lock the application's engine reports. */
	static final class LostLocks implements LockLostListener {

		private final BlockingQueue<LostLock> reported = new LinkedBlockingQueue<>();

		@Override
		public void onLockLost(LostLock lostLock) {
			this.reported.add(lostLock);
		}

		/** The next loss reported, waiting up to 10 s for it. */
		LostLock next() throws InterruptedException {
			LostLock lost = this.reported.poll(10, TimeUnit.SECONDS);
			if (lost == null) {
				throw new AssertionError("No lost lock was reported within 10 s");
			}
			return lost;
		}

		void clear() {
			this.reported.clear();
		}

	}

}
