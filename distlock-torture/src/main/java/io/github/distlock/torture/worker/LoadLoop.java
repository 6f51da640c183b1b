package io.github.distlock.torture.worker;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.github.distlock.LockAcquisitionException;
import io.github.distlock.LockLostException;
import io.github.distlock.fixtures.redis.RespClient;

/**
 * The worker's load: threads that call the locked section on random hot keys until a deadline, and record how each
 * call ended. A thread starts no call after the deadline, so the loop ends by itself within one wait and one hold.
 */
public final class LoadLoop {

	private final WorkerProperties properties;

	private final LockedCall lockedCall;

	private final WorkerHistory history;

	private final HoldTimes holdTimes;

	private final AtomicLong calls = new AtomicLong();

	public LoadLoop(WorkerProperties properties, LockedCall lockedCall, WorkerHistory history) {
		this.properties = properties;
		this.lockedCall = lockedCall;
		this.history = history;
		this.holdTimes = (properties.lockMode() == WorkerProperties.LockMode.LEADER)
				? HoldTimes.forLeader(properties.lease()) : HoldTimes.forLocks(properties.lease());
	}

	/**
	 * Runs the threads until the deadline and waits for them.
	 * @return whether every thread finished within the bound
	 */
	public boolean run(long deadlineNanos) throws InterruptedException {
		List<Thread> threads = new ArrayList<>();
		for (int i = 0; i < this.properties.threads(); i++) {
			String name = this.properties.worker() + "-t" + i;
			Random random = new Random(this.properties.seed() * 31 + name.hashCode());
			Thread thread = new Thread(() -> loop(name, random, deadlineNanos), name);
			threads.add(thread);
			thread.start();
		}
		// A call started just before the deadline may wait, hold and release; past this something hangs.
		Duration bound = this.properties.waitTime().plus(HoldTimes.longest(this.properties.lease()))
			.plusSeconds(30);
		long joinBy = deadlineNanos + bound.toNanos();
		boolean allDone = true;
		for (Thread thread : threads) {
			thread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(joinBy - System.nanoTime())));
			if (thread.isAlive()) {
				allDone = false;
				// Where it hangs is the first thing anyone will ask; the output goes to the worker's .out file.
				System.out.println("HUNG thread " + thread.getName() + ":");
				for (StackTraceElement frame : thread.getStackTrace()) {
					System.out.println("\tat " + frame);
				}
			}
		}
		return allDone;
	}

	private void loop(String name, Random random, long deadlineNanos) {
		try (RespClient fence = new RespClient("127.0.0.1", this.properties.fencePort())) {
			while (System.nanoTime() - deadlineNanos < 0) {
				String key = this.properties.keys().get(random.nextInt(this.properties.keys().size()));
				Section section = new Section(this.properties.worker(), name, this.calls.incrementAndGet(), key,
						this.holdTimes.next(random), fence);
				call(section);
				// A short think time, so a releasing thread does not always win its key straight back.
				TimeUnit.MILLISECONDS.sleep(random.nextInt(10));
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	private void call(Section section) {
		try {
			this.lockedCall.run(section);
			this.history.released(section);
		}
		catch (LockAcquisitionException ex) {
			this.history.timedOut(section, ex.isStoreUnavailable());
		}
		catch (LockLostException ex) {
			if (section.acquired()) {
				this.history.lost(section, String.valueOf(ex.getReason()));
			}
			else {
				this.history.lostOnArrival(section, ex.getToken(), String.valueOf(ex.getReason()));
			}
		}
		catch (RuntimeException ex) {
			this.history.failed(section, ex);
			System.out.println("FAILED call " + section.call + ": " + ex);
		}
	}

}
