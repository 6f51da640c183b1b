package io.github.distlock.torture.worker;

import java.util.concurrent.TimeUnit;

/**
 * Notices when this worker's JVM did not run: a thread that sleeps a few milliseconds at a time and writes a
 * {@code stalled} line whenever it woke much later than asked. The runner records the pauses and starvation it
 * injects; a stall nobody injected (a machine loaded by other processes, a long safepoint) shows only here. The
 * checker accepts a long enough stall of a holder's own worker as the cause of its loss, as it accepts an injected
 * pause: a JVM that does not run cannot renew. A watchdog blocked by an engine defect leaves this thread running,
 * so such a defect cannot hide behind it.
 */
final class StallWatch implements AutoCloseable {

	private static final long TICK_MILLIS = 5;

	/** The shortest lateness written down: a busy machine's scheduling delays are shorter. */
	private static final long REPORTED_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

	private final WorkerHistory history;

	private final Thread thread;

	private volatile boolean stopped;

	StallWatch(WorkerHistory history) {
		this.history = history;
		this.thread = new Thread(this::watch, "torture-stall-watch");
		this.thread.setDaemon(true);
	}

	void start() {
		this.thread.start();
	}

	private void watch() {
		long due = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(TICK_MILLIS);
		while (!this.stopped) {
			try {
				TimeUnit.NANOSECONDS.sleep(Math.max(0, due - System.nanoTime()));
			}
			catch (InterruptedException ex) {
				return;
			}
			long woke = System.nanoTime();
			if (woke - due >= REPORTED_NANOS) {
				this.history.stalled(due, woke);
			}
			due = woke + TimeUnit.MILLISECONDS.toNanos(TICK_MILLIS);
		}
	}

	@Override
	public void close() {
		this.stopped = true;
		this.thread.interrupt();
	}

}
