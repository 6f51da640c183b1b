package io.github.distlock.benchmarks.lockserver;

import java.time.Duration;
import java.util.function.Function;

import io.github.distlock.benchmarks.measure.TimedLoop;

/**
 * One thread of one instance taking a free lock and releasing it, again and again: pairs per second, the time of one
 * pair, and what each pair costs the server (requests received, writes). As in the database benchmark, every pair of
 * a round uses the same key, as an application locking one resource would (on ZooKeeper the key's parent node then
 * stays, so a pair is the lock and nothing else).
 */
public final class UncontendedPairs {

	/**
	 * The lock is free, so nobody waits; the wait is not zero because some systems bound even their check that the
	 * server answers by it (Spring Integration's ZooKeeper registry), and would then refuse.
	 */
	private static final Duration WAIT = Duration.ofSeconds(5);

	private UncontendedPairs() {
	}

	/** Warms the instance up for a third of the window, then measures for the window. */
	public static <C> Result measure(LockServer<C> server, Function<C, SystemLock> system, String key,
			Duration window) throws Exception {
		try (LockInstance instance = server.open(system)) {
			SystemLock lock = instance.lock();
			TimedLoop.run(window.dividedBy(3), Long.MAX_VALUE, () -> key, (k) -> pair(lock, k));
			ServerCounters before = server.counters();
			TimedLoop.Result pairs = TimedLoop.run(window, Long.MAX_VALUE, () -> key, (k) -> pair(lock, k));
			ServerCounters cost = server.counters().since(before);
			double n = pairs.samples().size();
			return new Result(pairs.perSecond(), pairs.samples().percentileMicros(50),
					pairs.samples().percentileMicros(99), cost.received() / n, cost.writes() / n, instance.lostLocks());
		}
	}

	private static void pair(SystemLock lock, String key) {
		try {
			SystemLock.Held held = lock.lock(key, WAIT);
			if (held == null) {
				throw new IllegalStateException("A free lock was refused: " + key);
			}
			held.unlock();
		}
		catch (RuntimeException ex) {
			throw ex;
		}
		catch (Exception ex) {
			throw new IllegalStateException(ex);
		}
	}

	/**
	 * @param requests requests the server received per pair: the pair's round trips, and the messages it sends
	 * without waiting for an answer
	 * @param writes writes per pair
	 * @param lost locks lost during the window (see {@link LockInstance#lostLocks()})
	 */
	public record Result(double rate, double p50Micros, double p99Micros, double requests, double writes, long lost) {
	}

}
