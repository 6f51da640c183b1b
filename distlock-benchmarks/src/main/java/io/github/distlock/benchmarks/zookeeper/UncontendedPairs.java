package io.github.distlock.benchmarks.zookeeper;

import java.time.Duration;
import java.util.function.Function;

import org.apache.curator.framework.CuratorFramework;

import io.github.distlock.benchmarks.measure.TimedLoop;

/**
 * One thread of one instance taking a free lock and releasing it, again and again: pairs per second, the time of one
 * pair, and what each pair costs the server (requests received, transactions written). As in the database
 * benchmark, every pair of a round uses the same key: its parent node stays, so a pair is the lock and nothing else.
 */
final class UncontendedPairs {

	/**
	 * The lock is free, so nobody waits; the wait is not zero because the registry bounds even its connection check
	 * by it, and would then refuse.
	 */
	private static final Duration WAIT = Duration.ofSeconds(5);

	private UncontendedPairs() {
	}

	/** Warms the instance up for a third of the window, then measures for the window. */
	static Result measure(ZooKeeperUnderTest zookeeper, Function<CuratorFramework, ZooKeeperLock> system, String key,
			Duration window) throws Exception {
		try (LockInstance instance = zookeeper.open(system)) {
			ZooKeeperLock lock = instance.lock();
			TimedLoop.run(window.dividedBy(3), Long.MAX_VALUE, () -> key, (k) -> pair(lock, k));
			ServerCounters before = zookeeper.counters();
			TimedLoop.Result pairs = TimedLoop.run(window, Long.MAX_VALUE, () -> key, (k) -> pair(lock, k));
			ServerCounters cost = zookeeper.counters().since(before);
			double n = pairs.samples().size();
			return new Result(pairs.perSecond(), pairs.samples().percentileMicros(50),
					pairs.samples().percentileMicros(99), cost.received() / n, cost.zxid() / n, instance.lostLocks());
		}
	}

	private static void pair(ZooKeeperLock lock, String key) {
		try {
			ZooKeeperLock.Held held = lock.lock(key, WAIT);
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
	 * @param requests requests the server received per pair: the pair's round trips
	 * @param writes transactions per pair
	 * @param lost locks lost during the window (see {@link LockInstance#lostLocks()})
	 */
	record Result(double rate, double p50Micros, double p99Micros, double requests, double writes, long lost) {
	}

}
