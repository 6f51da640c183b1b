package io.github.distlock.benchmarks.lockserver;

import java.time.Duration;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;

import io.github.distlock.benchmarks.measure.HandOverLog;
import io.github.distlock.benchmarks.measure.Workers;

/**
 * Two instances of a system (two clients, as two applications would have) with four threads each, all wanting one
 * key, with an empty critical section: acquisitions per second, instance A's share, and the hand-over from a holder's
 * last instruction before its unlock call to the next holder's first after its lock call returned. The critical
 * section is watched for overlaps by {@link HandOverLog}; the server counts the requests it received, which shows how
 * many waiters each release wakes.
 */
public final class HotKeyContention {

	static final int INSTANCES = 2;

	static final int THREADS_PER_INSTANCE = 4;

	private static final Duration WAIT = Duration.ofSeconds(30);

	private HotKeyContention() {
	}

	/** Warms both instances up on the key for a third of the window, then measures for the window. */
	public static <C> Result measure(LockServer<C> server, Function<C, SystemLock> system, String key,
			Duration window) throws Exception {
		try (LockInstance a = server.open(system); LockInstance b = server.open(system)) {
			LockInstance[] instances = { a, b };
			Duration warmUp = window.dividedBy(3);
			contend(instances, key, warmUp, new HandOverLog(INSTANCES, warmUp.toNanos()));
			HandOverLog log = new HandOverLog(INSTANCES, window.toNanos());
			ServerCounters before = server.counters();
			long timeouts = contend(instances, key, window, log);
			ServerCounters cost = server.counters().since(before);
			return new Result(log.countedAcquisitions() / (window.toNanos() / 1e9), log.sharesPercent()[0],
					log.handOverMicros(50), log.handOverMicros(99),
					(double) cost.received() / log.totalAcquisitions(), a.lostLocks() + b.lostLocks(),
					log.violations(), timeouts);
		}
	}

	/** Runs every thread until the window closes; answers how many lock calls gave up waiting. */
	private static long contend(LockInstance[] instances, String key, Duration window, HandOverLog log) {
		LongAdder timeouts = new LongAdder();
		// A thread still waiting when the window closes gets the lock once more, within its wait.
		Duration limit = window.plus(WAIT).plusSeconds(30);
		Workers.run("hot-key", INSTANCES * THREADS_PER_INSTANCE, limit, (index, startNanos) -> {
			int instance = index % INSTANCES;
			SystemLock lock = instances[instance].lock();
			log.open(startNanos);
			long deadline = startNanos + window.toNanos();
			while (System.nanoTime() - deadline < 0) {
				SystemLock.Held held = lock.lock(key, WAIT);
				if (held == null) {
					timeouts.increment();
					continue;
				}
				log.entered(instance);
				log.exiting(instance);
				held.unlock();
			}
		});
		return timeouts.sum();
	}

	/**
	 * @param shareA instance A's share of the acquisitions, in per cent
	 * @param requests requests the server received per acquisition, with the threads that still got the lock
	 * once after the window closed
	 * @param lost locks lost by either instance (see {@link LockInstance#lostLocks()})
	 * @param overlaps times a holder entered while another was still inside
	 * @param timeouts lock calls that gave up after waiting 30 s
	 */
	public record Result(double rate, double shareA, double handOverP50Micros, double handOverP99Micros,
			double requests, long lost, long overlaps, long timeouts) {
	}

}
