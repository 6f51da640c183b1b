package io.github.distlock.benchmarks.keyset;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

import org.redisson.Redisson;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import org.springframework.boot.Banner;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import io.github.distlock.benchmarks.redis.CommandMonitor;
import io.github.distlock.benchmarks.redis.CommandTrace;
import io.github.distlock.benchmarks.redis.RedisUnderTest;
import io.github.distlock.benchmarks.systems.AnnotatedApplication;
import io.github.distlock.benchmarks.systems.LockedWork;

/**
 * Locks on two keys at once: a {@code @DistributedLock} method whose key is a list against Redisson's
 * {@code RedissonMultiLock} of two {@code RLock}s, side by side on one redis-server, rounds interleaved. Per system:
 * lock+unlock pairs per second on one thread (uncontended), with the Redis commands a pair costs as MONITOR shows
 * them; and transfers between 10 accounts, each locking two random ones in the order the caller happens to name them,
 * from two clients × 4 threads: acquisitions (of both keys) per second.
 */
public final class KeySetBenchmark {

	private static final int ACCOUNTS = 10;

	private static final int CLIENTS = 2;

	private static final int THREADS_PER_CLIENT = 4;

	private static final int TRACED_PAIRS = 100;

	private final Duration window;

	private final int rounds;

	private KeySetBenchmark(Duration window, int rounds) {
		this.window = window;
		this.rounds = rounds;
	}

	/** {@code [--smoke] [--out FILE]}: a full run takes about half a minute, a smoke run a few seconds. */
	public static void main(String[] args) throws Exception {
		boolean smoke = List.of(args).contains("--smoke");
		int out = List.of(args).indexOf("--out");
		String report = smoke ? smokeReport() : new KeySetBenchmark(Duration.ofSeconds(3), 3).run();
		System.out.println(report);
		if (out >= 0) {
			Files.writeString(Path.of(args[out + 1]), report);
		}
	}

	/** The short mode's report, as {@code --smoke} prints it. */
	public static String smokeReport() throws Exception {
		return new KeySetBenchmark(Duration.ofMillis(500), 1).run();
	}

	/** Two keys locked together, all or none. */
	interface KeySetLock extends AutoCloseable {

		void run(List<String> keys, Runnable body);

		@Override
		void close();

	}

	private record Uncontended(double pairsPerSecond, double clientCommands, double scriptCommands) {

	}

	/** Runs both systems and answers the report, in Markdown. */
	public String run() throws Exception {
		Map<String, Function<RedisUnderTest, KeySetLock>> systems = new LinkedHashMap<>();
		systems.put("distlock @DistributedLock(key = list)", KeySetBenchmark::distlock);
		systems.put("Redisson RedissonMultiLock", KeySetBenchmark::redisson);
		Map<String, List<Uncontended>> uncontended = new LinkedHashMap<>();
		Map<String, List<Double>> transfers = new LinkedHashMap<>();
		try (RedisUnderTest redis = RedisUnderTest.start(); CommandMonitor monitor = new CommandMonitor(redis)) {
			for (int round = 0; round < this.rounds; round++) {
				for (Map.Entry<String, Function<RedisUnderTest, KeySetLock>> system : systems.entrySet()) {
					uncontended.computeIfAbsent(system.getKey(), (name) -> new ArrayList<>())
						.add(uncontended(redis, monitor, system.getValue(), round));
					transfers.computeIfAbsent(system.getKey(), (name) -> new ArrayList<>())
						.add(transfers(redis, system.getValue(), round));
				}
			}
		}
		return report(uncontended, transfers);
	}

	private static KeySetLock distlock(RedisUnderTest redis) {
		ConfigurableApplicationContext context = new SpringApplicationBuilder(AnnotatedApplication.class)
			.web(WebApplicationType.NONE)
			.bannerMode(Banner.Mode.OFF)
			.logStartupInfo(false)
			.registerShutdownHook(false)
			.properties("spring.data.redis.host=" + redis.host(), "spring.data.redis.port=" + redis.port(),
					"distlock.backend=redis", "bench.lease=30s", "bench.wait-time=30s")
			.run();
		LockedWork work = context.getBean(LockedWork.class);
		return new KeySetLock() {

			@Override
			public void run(List<String> keys, Runnable body) {
				work.lockedAll(keys, body);
			}

			@Override
			public void close() {
				context.close();
			}

		};
	}

	/** Redisson as an application gets it by default; its watchdog renews like distlock's. */
	private static KeySetLock redisson(RedisUnderTest redis) {
		Config config = new Config();
		config.useSingleServer().setAddress(redis.url());
		RedissonClient client = Redisson.create(config);
		return new KeySetLock() {

			@Override
			public void run(List<String> keys, Runnable body) {
				RLock[] locks = keys.stream().map((key) -> client.getLock("rdsn:bench:" + key)).toArray(RLock[]::new);
				RLock all = client.getMultiLock(locks);
				all.lock();
				try {
					body.run();
				}
				finally {
					all.unlock();
				}
			}

			@Override
			public void close() {
				client.shutdown(0, 2, TimeUnit.SECONDS);
			}

		};
	}

	private Uncontended uncontended(RedisUnderTest redis, CommandMonitor monitor,
			Function<RedisUnderTest, KeySetLock> system, int round) {
		List<String> keys = List.of("u" + round + "-b", "u" + round + "-a");
		try (KeySetLock lock = system.apply(redis)) {
			long warmUntil = System.nanoTime() + this.window.toNanos() / 3;
			while (System.nanoTime() < warmUntil) {
				lock.run(keys, () -> {
				});
			}
			CommandTrace trace = monitor.record(() -> {
				for (int i = 0; i < TRACED_PAIRS; i++) {
					lock.run(keys, () -> {
					});
				}
			});
			long pairs = 0;
			long start = System.nanoTime();
			long until = start + this.window.toNanos();
			while (System.nanoTime() < until) {
				lock.run(keys, () -> {
				});
				pairs++;
			}
			double seconds = (System.nanoTime() - start) / 1e9;
			return new Uncontended(pairs / seconds, (double) trace.clientCount() / TRACED_PAIRS,
					(double) trace.scriptCount() / TRACED_PAIRS);
		}
	}

	private double transfers(RedisUnderTest redis, Function<RedisUnderTest, KeySetLock> system, int round)
			throws Exception {
		List<KeySetLock> clients = new ArrayList<>();
		for (int i = 0; i < CLIENTS; i++) {
			clients.add(system.apply(redis));
		}
		ExecutorService executor = Executors.newFixedThreadPool(CLIENTS * THREADS_PER_CLIENT);
		try {
			AtomicBoolean running = new AtomicBoolean(true);
			AtomicLong done = new AtomicLong();
			AtomicLong measureFrom = new AtomicLong(System.nanoTime() + this.window.toNanos() / 3);
			List<Future<?>> workers = new ArrayList<>();
			for (int t = 0; t < CLIENTS * THREADS_PER_CLIENT; t++) {
				KeySetLock lock = clients.get(t % CLIENTS);
				workers.add(executor.submit(() -> {
					ThreadLocalRandom random = ThreadLocalRandom.current();
					while (running.get()) {
						int from = random.nextInt(ACCOUNTS);
						int to = (from + 1 + random.nextInt(ACCOUNTS - 1)) % ACCOUNTS;
						lock.run(List.of("t" + round + "-" + from, "t" + round + "-" + to), () -> {
						});
						if (System.nanoTime() - measureFrom.get() >= 0) {
							done.incrementAndGet();
						}
					}
					return null;
				}));
			}
			TimeUnit.NANOSECONDS.sleep(Math.max(0, measureFrom.get() + this.window.toNanos() - System.nanoTime()));
			long counted = done.get();
			running.set(false);
			for (Future<?> worker : workers) {
				worker.get(60, TimeUnit.SECONDS);
			}
			return counted / (this.window.toNanos() / 1e9);
		}
		finally {
			executor.shutdownNow();
			clients.forEach(KeySetLock::close);
		}
	}

	private String report(Map<String, List<Uncontended>> uncontended, Map<String, List<Double>> transfers) {
		ByteArrayOutputStream bytes = new ByteArrayOutputStream();
		PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
		out.printf("Two keys locked together on one redis-server, %d round(s) of %d ms per system and scenario, "
				+ "interleaved; medians.%n%n", this.rounds, this.window.toMillis());
		out.println("| system | uncontended pairs/s | client commands per pair | script commands per pair "
				+ "| transfers/s (2 clients x 4 threads, 10 accounts) |");
		out.println("|---|---|---|---|---|");
		for (String system : uncontended.keySet()) {
			List<Uncontended> runs = uncontended.get(system);
			out.printf(Locale.ROOT, "| %s | %.0f | %.1f | %.1f | %.0f |%n", system,
					median(runs.stream().map(Uncontended::pairsPerSecond).toList()),
					median(runs.stream().map(Uncontended::clientCommands).toList()),
					median(runs.stream().map(Uncontended::scriptCommands).toList()), median(transfers.get(system)));
		}
		return bytes.toString(StandardCharsets.UTF_8);
	}

	private static double median(List<Double> values) {
		List<Double> sorted = new ArrayList<>(values);
		sorted.sort(null);
		return sorted.get(sorted.size() / 2);
	}

}
