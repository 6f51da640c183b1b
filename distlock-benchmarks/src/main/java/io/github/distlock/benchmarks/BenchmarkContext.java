package io.github.distlock.benchmarks;

import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import io.github.distlock.benchmarks.redis.RedisUnderTest;
import io.github.distlock.benchmarks.report.Results;
import io.github.distlock.benchmarks.systems.LockSystem;

/**
 * What a scenario works with: the settings, the Redis server, the systems, and where results go.
 */
public final class BenchmarkContext {

	private final BenchmarkSettings settings;

	private final RedisUnderTest redis;

	private final List<LockSystem> systems;

	private final Results results;

	private final AtomicLong keys = new AtomicLong();

	public BenchmarkContext(BenchmarkSettings settings, RedisUnderTest redis, List<LockSystem> systems,
			Results results) {
		this.settings = settings;
		this.redis = redis;
		this.systems = List.copyOf(systems);
		this.results = results;
	}

	public BenchmarkSettings settings() {
		return this.settings;
	}

	public RedisUnderTest redis() {
		return this.redis;
	}

	public List<LockSystem> systems() {
		return this.systems;
	}

	public Results results() {
		return this.results;
	}

	/** A key never used before in this run, so no measurement meets a lock left by another. */
	public String freshKey(String scenario) {
		return scenario + "-" + this.keys.incrementAndGet();
	}

	/**
	 * Runs one system's part of a scenario; a failure is reported as a note, and the run goes on with the other
	 * systems (the missing numbers then show in the table and fail the smoke test).
	 * @return whether it succeeded
	 */
	public boolean attempt(String scenario, LockSystem system, Runnable work) {
		try {
			work.run();
			return true;
		}
		catch (RuntimeException ex) {
			fail("FAILED", scenario, system, ex);
			return false;
		}
	}

	/**
	 * Runs one timed round of one system, as {@link #attempt}, except that a round in which another library (a peer,
	 * not distlock) throws is noted and run once more: a peer that fails now and then under the smoke run's sizes on
	 * a loaded machine (Spring Integration's pub/sub registry once threw "Failed to lock mutex" in the many-keys
	 * scenario) is that library's result, reported, not a broken harness. A second failure, or any failure of
	 * distlock's own systems, is a failure of the run. Only for work that can run again: a round whose failure
	 * leaves nothing recorded.
	 */
	public boolean attemptRound(String scenario, LockSystem system, Runnable round) {
		if (system.isDistlock()) {
			return attempt(scenario, system, round);
		}
		try {
			round.run();
			return true;
		}
		catch (RuntimeException ex) {
			fail("RETRIED", scenario, system, ex);
			return attempt(scenario, system, round);
		}
	}

	private void fail(String what, String scenario, LockSystem system, RuntimeException ex) {
		this.results.note(what + " " + scenario + " / " + system.name() + ": " + causes(ex));
		System.err.println(what + " " + scenario + " / " + system.name());
		ex.printStackTrace();
	}

	/** The exception and each of its causes, as the note's one line: a peer's wrapper alone says little. */
	private static String causes(Throwable ex) {
		StringBuilder text = new StringBuilder(ex.toString());
		for (Throwable cause = ex.getCause(); cause != null && cause != cause.getCause(); cause = cause.getCause()) {
			text.append(" <- ").append(cause);
		}
		return text.toString();
	}

	/** Progress on the console, so a long run shows where it is. */
	public void progress(String text) {
		System.out.println(text);
		System.out.flush();
	}

}
