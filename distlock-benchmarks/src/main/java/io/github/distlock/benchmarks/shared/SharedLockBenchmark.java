package io.github.distlock.benchmarks.shared;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;

import io.github.distlock.benchmarks.redis.CommandMonitor;
import io.github.distlock.benchmarks.redis.CommandTrace;
import io.github.distlock.benchmarks.redis.RedisUnderTest;
import io.github.distlock.benchmarks.report.Numbers;
import io.github.distlock.benchmarks.report.TextTable;
import io.github.distlock.benchmarks.shared.SharedScenarios.Acquire;
import io.github.distlock.benchmarks.shared.SharedScenarios.Contention;

/**
 * Read/write locks and permits: distlock's {@code RedisLockEngine} ({@code LockMode.READ}/{@code WRITE}, and
 * {@code permits}) against Redisson's {@code RReadWriteLock} and {@code RPermitExpirableSemaphore}, side by side on
 * one redis-server, rounds interleaved (the order of the systems turning from round to round). Per system and round:
 * read, write and permit lock+unlock pairs per second on one thread (uncontended), with the Redis commands a pair
 * costs as MONITOR shows them; a read-heavy mix on one key (2 clients × 4 threads, 90 % reads), with the writers'
 * longest wait and any moment a writer shared the lock; and 2 clients × 8 threads contending for 4 permits.
 */
public final class SharedLockBenchmark {

	private static final int CLIENTS = 2;

	private static final int MIX_THREADS_PER_CLIENT = 4;

	private static final int PERMIT_THREADS_PER_CLIENT = 8;

	private static final int PERMITS = 4;

	private final Duration window;

	private final int rounds;

	private SharedLockBenchmark(Duration window, int rounds) {
		this.window = window;
		this.rounds = rounds;
	}

	/** {@code [--smoke] [--out FILE]}: a full run takes about 3 ½ minutes, a smoke run a few seconds. */
	public static void main(String[] args) throws Exception {
		boolean smoke = List.of(args).contains("--smoke");
		int out = List.of(args).indexOf("--out");
		String report = smoke ? smokeReport() : new SharedLockBenchmark(Duration.ofSeconds(3), 5).run();
		System.out.println(report);
		if (out >= 0) {
			Files.writeString(Path.of(args[out + 1]), report);
		}
	}

	/** The short mode's report, as {@code --smoke} prints it. */
	public static String smokeReport() throws Exception {
		return new SharedLockBenchmark(Duration.ofMillis(250), 1).run();
	}

	/** One round of one system. */
	private record Round(double readPairs, double writePairs, double permitPairs, CommandTrace readTrace,
			CommandTrace writeTrace, CommandTrace permitTrace, Contention mix, Contention permits, long lost) {

	}

	/** Runs both systems and answers the report, in Markdown. */
	public String run() throws Exception {
		Map<String, Function<RedisUnderTest, SharedLockClient>> systems = new LinkedHashMap<>();
		systems.put(DistlockSharedClient.NAME, DistlockSharedClient::new);
		systems.put(RedissonSharedClient.NAME, RedissonSharedClient::new);
		List<String> names = List.copyOf(systems.keySet());
		Map<String, List<Round>> results = new LinkedHashMap<>();
		names.forEach((name) -> results.put(name, new ArrayList<>()));
		String version;
		try (RedisUnderTest redis = RedisUnderTest.start()) {
			version = redis.version();
			for (int round = 0; round < this.rounds; round++) {
				for (int i = 0; i < names.size(); i++) {
					String name = names.get((i + round) % names.size());
					results.get(name).add(round(redis, systems.get(name), round));
				}
			}
		}
		return report(results, version);
	}

	private Round round(RedisUnderTest redis, Function<RedisUnderTest, SharedLockClient> system, int round) {
		List<SharedLockClient> clients = new ArrayList<>();
		try {
			for (int i = 0; i < CLIENTS; i++) {
				clients.add(system.apply(redis));
			}
			SharedLockClient one = clients.get(0);
			String permitKey = "p" + round;
			one.preparePermits(permitKey, PERMITS);
			Acquire read = () -> one.read("r" + round);
			Acquire write = () -> one.write("w" + round);
			Acquire permit = () -> one.permit(permitKey, PERMITS);
			Duration warmup = this.window.dividedBy(3);
			CommandTrace readTrace;
			CommandTrace writeTrace;
			CommandTrace permitTrace;
			// MONITOR makes Redis copy every command to it: open only while tracing, closed before any timing.
			try (CommandMonitor monitor = new CommandMonitor(redis)) {
				SharedScenarios.warm(read, warmup);
				readTrace = SharedScenarios.trace(monitor, read);
				SharedScenarios.warm(write, warmup);
				writeTrace = SharedScenarios.trace(monitor, write);
				SharedScenarios.warm(permit, warmup);
				permitTrace = SharedScenarios.trace(monitor, permit);
			}
			double readPairs = SharedScenarios.pairsPerSecond(read, this.window);
			double writePairs = SharedScenarios.pairsPerSecond(write, this.window);
			double permitPairs = SharedScenarios.pairsPerSecond(permit, this.window);
			Contention mix = SharedScenarios.readHeavyMix(clients, MIX_THREADS_PER_CLIENT, "m" + round, this.window);
			String contendedKey = "c" + round;
			clients.forEach((client) -> client.preparePermits(contendedKey, PERMITS));
			Contention permits = SharedScenarios.contendedPermits(clients, PERMIT_THREADS_PER_CLIENT, contendedKey,
					PERMITS, this.window);
			long lost = clients.stream().mapToLong(SharedLockClient::lostLocks).sum();
			return new Round(readPairs, writePairs, permitPairs, readTrace, writeTrace, permitTrace, mix, permits, lost);
		}
		finally {
			clients.forEach(SharedLockClient::close);
		}
	}

	/** A row of the table: how its value is drawn from a system's rounds. */
	private record Row(String label, ToDoubleFunction<List<Round>> value) {

	}

	private List<Row> rows() {
		double seconds = this.window.toMillis() / 1000.0;
		return List.of(new Row("a. read lock+unlock pairs/s, 1 thread", median(Round::readPairs)),
				new Row("b. write lock+unlock pairs/s, 1 thread", median(Round::writePairs)),
				new Row("c. read-heavy mix acquisitions/s, 2 clients x 4 threads, one key",
						median((round) -> round.mix().acquisitionsPerSecond())),
				new Row(String.format(Locale.ROOT, "c. writer acquisitions per %s s round", Numbers.format(seconds)),
						median((round) -> round.mix().writers())),
				new Row("c. longest writer wait, ms (all rounds)",
						max((round) -> round.mix().maxWriterWaitNanos() / 1e6)),
				new Row("c. longest reader wait, ms (all rounds)",
						max((round) -> round.mix().maxReaderWaitNanos() / 1e6)),
				new Row("c. exclusion violations (all rounds)", sum((round) -> round.mix().violations())),
				new Row("d. client commands per read pair", median((round) -> perPair(round.readTrace(), true))),
				new Row("d. script commands per read pair", median((round) -> perPair(round.readTrace(), false))),
				new Row("d. client commands per write pair", median((round) -> perPair(round.writeTrace(), true))),
				new Row("d. script commands per write pair", median((round) -> perPair(round.writeTrace(), false))),
				new Row("e. permit acquire+release pairs/s, 1 thread", median(Round::permitPairs)),
				new Row("f. permit acquisitions/s, 4 permits, 2 clients x 8 threads",
						median((round) -> round.permits().acquisitionsPerSecond())),
				new Row("f. longest permit wait, ms (all rounds)",
						max((round) -> round.permits().maxWriterWaitNanos() / 1e6)),
				new Row("f. more than 4 holders at once (all rounds)", sum((round) -> round.permits().violations())),
				new Row("g. client commands per permit pair", median((round) -> perPair(round.permitTrace(), true))),
				new Row("g. script commands per permit pair",
						median((round) -> perPair(round.permitTrace(), false))));
	}

	private String report(Map<String, List<Round>> results, String version) {
		List<String> names = List.copyOf(results.keySet());
		List<String> header = new ArrayList<>(List.of("scenario"));
		header.addAll(names);
		header.add(names.get(0) + " / " + names.get(1));
		TextTable table = new TextTable(header);
		for (Row row : rows()) {
			List<String> cells = new ArrayList<>(List.of(row.label()));
			double first = row.value().applyAsDouble(results.get(names.get(0)));
			double second = row.value().applyAsDouble(results.get(names.get(1)));
			cells.add(Numbers.format(first));
			cells.add(Numbers.format(second));
			cells.add((second != 0) ? Numbers.ratio(first / second) : "n/a");
			table.add(cells);
		}
		StringBuilder text = new StringBuilder();
		text.append(String.format(Locale.ROOT,
				"Read/write locks and permits on one redis-server (%s), %d round(s) of %d ms per system and scenario, "
						+ "interleaved; medians of the rounds unless a row says all rounds.%n%n",
				version, this.rounds, this.window.toMillis()));
		text.append(table.markdown()).append('\n');
		for (String name : names) {
			Round last = results.get(name).get(results.get(name).size() - 1);
			text.append("- ").append(name).append(", read pair: ")
				.append(last.readTrace().describe(SharedScenarios.TRACED_PAIRS)).append('\n');
			text.append("- ").append(name).append(", write pair: ")
				.append(last.writeTrace().describe(SharedScenarios.TRACED_PAIRS)).append('\n');
			text.append("- ").append(name).append(", permit pair: ")
				.append(last.permitTrace().describe(SharedScenarios.TRACED_PAIRS)).append('\n');
		}
		for (String name : names) {
			List<Round> rounds = results.get(name);
			long timeouts = rounds.stream().mapToLong((round) -> round.mix().timeouts() + round.permits().timeouts())
				.sum();
			long lostAtRelease = rounds.stream()
				.mapToLong((round) -> round.mix().lostAtRelease() + round.permits().lostAtRelease())
				.sum();
			long lost = rounds.stream().mapToLong(Round::lost).sum();
			text.append(String.format(Locale.ROOT,
					"- %s: waits that ran out (%d s): %d; releases that found the lock gone: %d; locks reported "
							+ "lost: %d%n",
					name, SharedLockClient.WAIT.toSeconds(), timeouts, lostAtRelease, lost));
		}
		return text.toString();
	}

	private static double perPair(CommandTrace trace, boolean client) {
		return (double) (client ? trace.clientCount() : trace.scriptCount()) / SharedScenarios.TRACED_PAIRS;
	}

	private static ToDoubleFunction<List<Round>> median(ToDoubleFunction<Round> metric) {
		return (rounds) -> {
			double[] values = rounds.stream().mapToDouble(metric).sorted().toArray();
			return values[values.length / 2];
		};
	}

	private static ToDoubleFunction<List<Round>> max(ToDoubleFunction<Round> metric) {
		return (rounds) -> rounds.stream().mapToDouble(metric).max().orElse(Double.NaN);
	}

	private static ToDoubleFunction<List<Round>> sum(ToDoubleFunction<Round> metric) {
		return (rounds) -> rounds.stream().mapToDouble(metric).sum();
	}

}
