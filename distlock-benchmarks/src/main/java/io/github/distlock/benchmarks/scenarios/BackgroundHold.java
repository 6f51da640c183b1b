package io.github.distlock.benchmarks.scenarios;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import io.github.distlock.benchmarks.systems.LockClient;

/**
 * Keeps one lock held by a client on a thread of its own until closed, so that other clients can be measured
 * failing to get it.
 */
final class BackgroundHold implements AutoCloseable {

	private final CountDownLatch held = new CountDownLatch(1);

	private final CountDownLatch done = new CountDownLatch(1);

	private final AtomicReference<Throwable> failure = new AtomicReference<>();

	private final Thread thread;

	/** @param limit the longest the lock is held, even if {@link #close()} is never called */
	BackgroundHold(LockClient holder, String key, Duration limit) {
		this.thread = new Thread(() -> {
			try {
				holder.holdAll(List.of(key), () -> {
					this.held.countDown();
					try {
						this.done.await(limit.toMillis(), TimeUnit.MILLISECONDS);
					}
					catch (InterruptedException ex) {
						Thread.currentThread().interrupt();
					}
				});
			}
			catch (Throwable ex) {
				this.failure.set(ex);
				this.held.countDown();
			}
		}, "background-hold");
		this.thread.setDaemon(true);
		this.thread.start();
		try {
			if (!this.held.await(30, TimeUnit.SECONDS) || this.failure.get() != null) {
				throw new IllegalStateException("Could not hold " + key, this.failure.get());
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	@Override
	public void close() {
		this.done.countDown();
		try {
			this.thread.join(TimeUnit.SECONDS.toMillis(30));
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		if (this.failure.get() != null) {
			throw new IllegalStateException("Releasing the held lock failed", this.failure.get());
		}
	}

}
