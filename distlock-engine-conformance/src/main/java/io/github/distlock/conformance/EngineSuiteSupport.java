package io.github.distlock.conformance;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

import io.github.distlock.LockLostListener;
import io.github.distlock.LostLock;
import io.github.distlock.engine.LockEngine;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the engine suites share: engines as separate application instances would have them, crashed at the end of
 * each test, the losses they report, and threads to wait on.
 */
public abstract class EngineSuiteSupport {

	protected final BlockingQueue<LostLock> lost = new LinkedBlockingQueue<>();

	private final List<LockEngine> engines = new ArrayList<>();

	/** Threads for acquisitions that wait, shut down after each test. */
	protected ExecutorService executor;

	/** A new engine, as a separate application instance would have, reporting its losses to the listener. */
	protected abstract LockEngine newEngine(LockLostListener listener);

	/** Stops an engine without releasing its locks, as a crashed process would. */
	protected abstract void crash(LockEngine engine);

	@BeforeEach
	void startExecutor() {
		this.executor = Executors.newCachedThreadPool();
	}

	@AfterEach
	void stopEverything() throws Exception {
		this.executor.shutdownNow();
		this.executor.awaitTermination(10, TimeUnit.SECONDS);
		for (LockEngine engine : this.engines) {
			crash(engine);
		}
	}

	/** A new engine reporting its losses to {@link #lost}, crashed after the test. */
	protected LockEngine engine() {
		return engineReportingTo(this.lost::add);
	}

	/**
	 * A new engine reporting its losses to the listener, crashed after the test. Public, as the cases a suite takes
	 * by implementing an interface (such as {@link HandOverAfterLossConformance}) ask for it.
	 */
	public LockEngine engineReportingTo(LockLostListener listener) {
		LockEngine engine = newEngine(listener);
		this.engines.add(engine);
		return engine;
	}

	/** {@link #executor}, for the cases a suite takes by implementing an interface. */
	public ExecutorService waiters() {
		return this.executor;
	}

	/** The next reported loss, waiting at most the given time for it. */
	protected LostLock awaitLoss(Duration within) throws InterruptedException {
		LostLock loss = this.lost.poll(within.toNanos(), TimeUnit.NANOSECONDS);
		assertThat(loss).as("a lost lock reported within " + within).isNotNull();
		return loss;
	}

}
