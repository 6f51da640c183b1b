package io.github.distlock.benchmarks.jdbc;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;

import io.github.distlock.fixtures.jdbc.PrivateDatabase;

/**
 * The database lock benchmark: distlock's JDBC engine, Spring Integration's {@code JdbcLockRegistry} and ShedLock's
 * JDBC provider, side by side in one run on one private database of the machine's PostgreSQL, the systems
 * interleaved round by round. Per system: lock+unlock pairs per second on one thread (uncontended), with the SQL
 * statements and commits each pair sends; and two instances (each its own pool) of four threads on one hot key:
 * acquisitions per second, each instance's share, and the hand-over time from a holder's unlock call to the next
 * holder's lock returning (p50, p99). ShedLock cannot wait for a lock, so it has no hot-key row.
 */
public final class JdbcBenchmark {

	private static final int THREADS_PER_INSTANCE = 4;

	private final Duration window;

	private final int rounds;

	private JdbcBenchmark(Duration window, int rounds) {
		this.window = window;
		this.rounds = rounds;
	}

	/** {@code [--smoke] [--out FILE]}: a full run takes about a minute, a smoke run a few seconds. */
	public static void main(String[] args) throws Exception {
		boolean smoke = List.of(args).contains("--smoke");
		int out = List.of(args).indexOf("--out");
		String report = smoke ? smokeReport() : new JdbcBenchmark(Duration.ofSeconds(3), 3).run();
		System.out.println(report);
		if (out >= 0) {
			Files.writeString(Path.of(args[out + 1]), report);
		}
	}

	/** The short mode's report, as {@code --smoke} prints it. */
	public static String smokeReport() throws Exception {
		return new JdbcBenchmark(Duration.ofMillis(500), 1).run();
	}

	/** Runs every system and answers the report, in Markdown. */
	public String run() throws Exception {
		Map<String, Function<DataSource, DatabaseLock>> systems = new LinkedHashMap<>();
		systems.put("distlock JDBC engine", DistlockDatabaseLock::new);
		systems.put("Spring Integration JdbcLockRegistry", RegistryDatabaseLock::new);
		systems.put("ShedLock JdbcTemplateLockProvider", ShedLockDatabaseLock::new);
		Map<String, List<Uncontended>> uncontended = new LinkedHashMap<>();
		Map<String, List<HotKey>> hot = new LinkedHashMap<>();
		try (PrivateDatabase database = PrivateDatabase.postgresql()) {
			database.execute(RegistryDatabaseLock.DDL);
			database.execute(ShedLockDatabaseLock.DDL);
			for (int round = 0; round < this.rounds; round++) {
				for (Map.Entry<String, Function<DataSource, DatabaseLock>> system : systems.entrySet()) {
					uncontended.computeIfAbsent(system.getKey(), (name) -> new ArrayList<>())
						.add(uncontended(database, system.getValue(), "u" + round));
					HotKey result = hotKey(database, system.getValue(), "h" + round);
					if (result != null) {
						hot.computeIfAbsent(system.getKey(), (name) -> new ArrayList<>()).add(result);
					}
				}
			}
		}
		return report(uncontended, hot);
	}

	private static HikariDataSource pool(PrivateDatabase database, String name) {
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(database.url());
		config.setUsername(database.user());
		config.setMaximumPoolSize(THREADS_PER_INSTANCE + 2);
		config.setPoolName(name);
		return new HikariDataSource(config);
	}

	private Uncontended uncontended(PrivateDatabase database, Function<DataSource, DatabaseLock> system, String key)
			throws Exception {
		StatementCounter counter = new StatementCounter();
		try (HikariDataSource pool = pool(database, "uncontended");
				DatabaseLock lock = system.apply(counter.wrap(pool))) {
			long warmUntil = System.nanoTime() + this.window.toNanos() / 3;
			while (System.nanoTime() < warmUntil) {
				lock.lock(key, Duration.ZERO).unlock();
			}
			long statements = counter.statements.sum();
			long commits = counter.commits.sum();
			List<Long> pairs = new ArrayList<>();
			long start = System.nanoTime();
			long until = start + this.window.toNanos();
			while (System.nanoTime() < until) {
				long before = System.nanoTime();
				DatabaseLock.Held held = lock.lock(key, Duration.ZERO);
				if (held == null) {
					throw new IllegalStateException("An uncontended lock was refused");
				}
				held.unlock();
				pairs.add(System.nanoTime() - before);
			}
			double seconds = (System.nanoTime() - start) / 1e9;
			int n = pairs.size();
			return new Uncontended(n / seconds, percentile(pairs, 50), percentile(pairs, 99),
					(double) (counter.statements.sum() - statements) / n, (double) (counter.commits.sum() - commits) / n);
		}
	}

	private HotKey hotKey(PrivateDatabase database, Function<DataSource, DatabaseLock> system, String key)
			throws Exception {
		try (HikariDataSource poolA = pool(database, "instance-a");
				HikariDataSource poolB = pool(database, "instance-b");
				DatabaseLock a = system.apply(poolA);
				DatabaseLock b = system.apply(poolB)) {
			if (!a.waits()) {
				return null;
			}
			AtomicBoolean running = new AtomicBoolean(true);
			AtomicLong releasedAt = new AtomicLong();
			AtomicLong[] perInstance = { new AtomicLong(), new AtomicLong() };
			List<Long> handOvers = java.util.Collections.synchronizedList(new ArrayList<>());
			ExecutorService executor = Executors.newFixedThreadPool(2 * THREADS_PER_INSTANCE);
			List<Future<?>> workers = new ArrayList<>();
			long measureFrom = System.nanoTime() + this.window.toNanos() / 3;
			for (int t = 0; t < 2 * THREADS_PER_INSTANCE; t++) {
				int instance = t % 2;
				DatabaseLock lock = (instance == 0) ? a : b;
				workers.add(executor.submit(() -> {
					while (running.get()) {
						long asked = System.nanoTime();
						DatabaseLock.Held held = lock.lock(key, Duration.ofSeconds(30));
						if (held == null) {
							continue;
						}
						long now = System.nanoTime();
						long released = releasedAt.get();
						if (now - measureFrom >= 0) {
							perInstance[instance].incrementAndGet();
							if (released != 0 && released - asked > 0) {
								// This caller was already waiting when the last holder let go.
								handOvers.add(now - released);
							}
						}
						releasedAt.set(System.nanoTime());
						held.unlock();
					}
					return null;
				}));
			}
			long until = measureFrom + this.window.toNanos();
			TimeUnit.NANOSECONDS.sleep(Math.max(0, until - System.nanoTime()));
			running.set(false);
			for (Future<?> worker : workers) {
				worker.get(60, TimeUnit.SECONDS);
			}
			executor.shutdown();
			double seconds = this.window.toNanos() / 1e9;
			long total = perInstance[0].get() + perInstance[1].get();
			List<Long> samples;
			synchronized (handOvers) {
				samples = new ArrayList<>(handOvers);
			}
			return new HotKey(total / seconds, total == 0 ? 0 : 100.0 * perInstance[0].get() / total,
					percentile(samples, 50), percentile(samples, 99));
		}
	}

	private static long percentile(List<Long> values, int percent) {
		if (values.isEmpty()) {
			return 0;
		}
		List<Long> sorted = new ArrayList<>(values);
		sorted.sort(null);
		int index = (int) Math.ceil(percent / 100.0 * sorted.size()) - 1;
		return sorted.get(Math.max(0, Math.min(sorted.size() - 1, index)));
	}

	private String report(Map<String, List<Uncontended>> uncontended, Map<String, List<HotKey>> hot) {
		java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
		PrintStream out = new PrintStream(bytes, true, java.nio.charset.StandardCharsets.UTF_8);
		out.printf("Database locks on PostgreSQL (%s), %d round(s) of %d ms per system and scenario, interleaved; "
				+ "medians of the rounds.%n%n", postgresVersion(), this.rounds, this.window.toMillis());
		out.println("| system | uncontended pairs/s | pair p50 µs | pair p99 µs | statements per pair | commits per pair "
				+ "| hot key acq/s (2 instances × 4 threads) | instance A share | hand-over p50 ms | hand-over p99 ms |");
		out.println("|---|---|---|---|---|---|---|---|---|---|");
		for (String system : uncontended.keySet()) {
			Uncontended u = median(uncontended.get(system), Uncontended::rate);
			HotKey h = hot.containsKey(system) ? median(hot.get(system), HotKey::rate) : null;
			out.printf("| %s | %.0f | %d | %d | %.1f | %.1f | %s | %s | %s | %s |%n", system, u.rate(),
					u.p50() / 1000, u.p99() / 1000, u.statements(), u.commits(),
					(h != null) ? String.format("%.0f", h.rate()) : "— (cannot wait)",
					(h != null) ? String.format("%.0f %%", h.shareA()) : "—",
					(h != null) ? String.format("%.1f", h.p50() / 1e6) : "—",
					(h != null) ? String.format("%.1f", h.p99() / 1e6) : "—");
		}
		return bytes.toString(java.nio.charset.StandardCharsets.UTF_8);
	}

	private static <T> T median(List<T> values, java.util.function.ToDoubleFunction<T> key) {
		List<T> sorted = new ArrayList<>(values);
		sorted.sort(java.util.Comparator.comparingDouble(key));
		return sorted.get(sorted.size() / 2);
	}

	private static String postgresVersion() {
		try {
			Process process = new ProcessBuilder("psql", "--version").redirectErrorStream(true).start();
			String version = new String(process.getInputStream().readAllBytes()).strip();
			process.waitFor(5, TimeUnit.SECONDS);
			return version;
		}
		catch (IOException | InterruptedException ex) {
			return "version unknown";
		}
	}

	record Uncontended(double rate, long p50, long p99, double statements, double commits) {
	}

	record HotKey(double rate, double shareA, long p50, long p99) {
	}

}
