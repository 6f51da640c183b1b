package io.github.distlock.benchmarks.scenarios;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;

import io.github.distlock.benchmarks.BenchmarkContext;
import io.github.distlock.benchmarks.measure.ProcessCpu;
import io.github.distlock.benchmarks.measure.Workers;
import io.github.distlock.benchmarks.redis.RedisInfo;
import io.github.distlock.benchmarks.systems.LockClient;
import io.github.distlock.benchmarks.systems.LockSystem;

/**
 * Many threads of one application locking distinct keys at once: how the client library scales when its
 * connections and threads are shared.
 */
public final class ParallelScenario implements Scenario {

	public static final String NAME = "parallel";

	public static final String PAIRS_PER_SECOND = "pairs/s";

	public static final String REDIS_CPU = "Redis CPU µs/pair";

	public static final String CLIENT_CPU = "client CPU µs/pair";

	@Override
	public String name() {
		return NAME;
	}

	@Override
	public String description() {
		return "Threads of one client, each lock + unlock on its own distinct keys; total pairs per second. CPU per "
				+ "pair: Redis's (used_cpu_sys + used_cpu_user) and this JVM's (every thread, the client library's "
				+ "I/O threads included), over the round.";
	}

	@Override
	public List<String> metrics() {
		return List.of(PAIRS_PER_SECOND, REDIS_CPU, CLIENT_CPU);
	}

	@Override
	public List<String> ratioMetrics() {
		return List.of(PAIRS_PER_SECOND);
	}

	@Override
	public void run(BenchmarkContext context) {
		InterleavedRounds.run(context, NAME, context.settings().roundTime(),
				(system, time) -> measure(context, system, time));
	}

	private Map<String, Double> measure(BenchmarkContext context, LockSystem system, Duration time) {
		LockClient client = system.client(0);
		int threads = context.settings().parallelThreads();
		long limit = context.settings().maxOpsPerLoop() / threads;
		LongAdder pairs = new LongAdder();
		AtomicLongArray ends = new AtomicLongArray(threads);
		RedisInfo before = context.redis().info();
		long clientCpuBefore = ProcessCpu.nanos();
		long start = Workers.run(NAME, threads, time.plusSeconds(60), (index, startNanos) -> {
			long deadline = startNanos + time.toNanos();
			long done = 0;
			long now = startNanos;
			while (now < deadline && done < limit) {
				LockCalls.lockFree(client, context.freshKey("p"));
				done++;
				now = System.nanoTime();
			}
			pairs.add(done);
			ends.set(index, now);
		});
		long clientCpu = ProcessCpu.nanos() - clientCpuBefore;
		RedisInfo.Delta redis = context.redis().info().since(before);
		long end = start;
		for (int i = 0; i < threads; i++) {
			end = Math.max(end, ends.get(i));
		}
		Map<String, Double> metrics = new LinkedHashMap<>();
		metrics.put(PAIRS_PER_SECOND, pairs.sum() / ((end - start) / 1e9));
		metrics.put(REDIS_CPU, redis.cpuSeconds() * 1e6 / pairs.sum());
		metrics.put(CLIENT_CPU, clientCpu / 1e3 / pairs.sum());
		return metrics;
	}

}
