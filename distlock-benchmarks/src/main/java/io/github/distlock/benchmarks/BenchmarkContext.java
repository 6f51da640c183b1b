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
			this.results.note("FAILED " + scenario + " / " + system.name() + ": " + ex);
			System.err.println("FAILED " + scenario + " / " + system.name());
			ex.printStackTrace();
			return false;
		}
	}

	/** Progress on the console, so a long run shows where it is. */
	public void progress(String text) {
		System.out.println(text);
		System.out.flush();
	}

}
