package io.github.distlock.benchmarks.scenarios;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

import io.github.distlock.benchmarks.BenchmarkContext;
import io.github.distlock.benchmarks.measure.Samples;
import io.github.distlock.benchmarks.measure.Workers;
import io.github.distlock.benchmarks.systems.LockClient;
import io.github.distlock.benchmarks.systems.LockSystem;

/**
 * A busy service: many threads of one application locking keys drawn at random from a large set (order ids, say) and
 * holding each for a random short time. Most acquisitions find the key free, a few wait for a holder; the time to
 * acquire shows both, and its p99 is where connection pools, thread hand-offs and waiting strategies show.
 * <p>
 * Each key's holders are counted inside the lock, so the scenario also checks that no key ever has two.
 */
public final class ManyKeysScenario implements Scenario {

	public static final String NAME = "many-keys";

	public static final String ACQUISITIONS_PER_SECOND = "acq/s";

	public static final String ACQUIRE_P50 = "acquire p50 µs";

	public static final String ACQUIRE_P99 = "acquire p99 µs";

	public static final String VIOLATIONS = "exclusion violations";

	public static final String TIMEOUTS = "timeouts";

	@Override
	public String name() {
		return NAME;
	}

	@Override
	public String description() {
		return "Threads of one client, each locking a key drawn at random from a fixed set and holding it for a "
				+ "random time up to the maximum hold (parked); time to acquire = from the call to the first "
				+ "instruction inside the lock.";
	}

	@Override
	public List<String> metrics() {
		return List.of(ACQUISITIONS_PER_SECOND, ACQUIRE_P50, ACQUIRE_P99, VIOLATIONS, TIMEOUTS);
	}

	@Override
	public List<String> ratioMetrics() {
		return List.of(ACQUISITIONS_PER_SECOND, ACQUIRE_P99);
	}

	@Override
	public void run(BenchmarkContext context) {
		InterleavedRounds.run(context, NAME, context.settings().roundTime(),
				(system, time) -> measure(context, system, time));
	}

	private Map<String, Double> measure(BenchmarkContext context, LockSystem system, Duration time) {
		LockClient client = system.client(0);
		int threads = context.settings().manyKeysThreads();
		int keyCount = context.settings().manyKeys();
		long maxHoldNanos = context.settings().maxHold().toNanos();
		long limit = context.settings().maxOpsPerLoop() / threads;
		// The same key names in every round: a lock left behind by one round would be met by the next.
		String[] keys = new String[keyCount];
		for (int i = 0; i < keyCount; i++) {
			keys[i] = "m-" + i;
		}
		AtomicIntegerArray holders = new AtomicIntegerArray(keyCount);
		LongAdder violations = new LongAdder();
		LongAdder timeouts = new LongAdder();
		Samples[] perThread = new Samples[threads];
		long[] ends = new long[threads];
		// Threads that wait when the window closes still finish their call (bounded by the wait time).
		Duration limitTime = time.plus(context.settings().locks().waitTime()).plusSeconds(60);
		long start = Workers.run(NAME, threads, limitTime, (index, startNanos) -> {
			Samples samples = new Samples();
			ThreadLocalRandom random = ThreadLocalRandom.current();
			long deadline = startNanos + time.toNanos();
			long[] calledAt = new long[1];
			long done = 0;
			long now = startNanos;
			while (now < deadline && done < limit) {
				int key = random.nextInt(keyCount);
				long hold = random.nextLong(maxHoldNanos + 1);
				Runnable body = () -> {
					samples.add(System.nanoTime() - calledAt[0]);
					if (holders.incrementAndGet(key) > 1) {
						violations.increment();
					}
					LockSupport.parkNanos(hold);
					holders.decrementAndGet(key);
				};
				calledAt[0] = System.nanoTime();
				if (!client.runLocked(keys[key], body)) {
					timeouts.increment();
				}
				done++;
				now = System.nanoTime();
			}
			perThread[index] = samples;
			ends[index] = now;
		});
		Samples all = new Samples();
		long end = start;
		for (int i = 0; i < threads; i++) {
			// Workers.run has joined every thread, so their arrays are visible here.
			all.addAll(perThread[i]);
			end = Math.max(end, ends[i]);
		}
		Map<String, Double> metrics = new LinkedHashMap<>();
		metrics.put(ACQUISITIONS_PER_SECOND, all.size() / ((end - start) / 1e9));
		metrics.put(ACQUIRE_P50, all.percentileMicros(50));
		metrics.put(ACQUIRE_P99, all.percentileMicros(99));
		metrics.put(VIOLATIONS, violations.doubleValue());
		metrics.put(TIMEOUTS, timeouts.doubleValue());
		return metrics;
	}

}
