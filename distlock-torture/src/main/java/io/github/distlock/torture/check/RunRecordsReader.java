package io.github.distlock.torture.check;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import io.github.distlock.redis.RedisLockKeys;

import io.github.distlock.torture.history.HistoryFiles;
import io.github.distlock.torture.history.HistoryLine;

/**
 * Reads a run directory: {@code run.properties}, {@code history-*.log} (with the workers' stalls), {@code fence.log}, {@code keyspace.log} (or
 * {@code keyspace-*.log}, one per node of a cluster),
 * {@code faults.log} and {@code keys-at-end.log}. Plain file parsing: nothing here comes from the library.
 */
public final class RunRecordsReader {

	/** Where the workers' locks (default prefix) live in Redis. */
	private static final RedisLockKeys LOCK_KEYS = new RedisLockKeys("distlock");

	/** The name of the workers' {@code @DistributedLock}. */
	public static final String LOCK_NAME = "torture";

	private RunRecordsReader() {
	}

	public static RunRecords read(Path dir) {
		RunParameters parameters = parameters(dir.resolve("run.properties"));
		List<Acquisition> acquisitions = new ArrayList<>();
		List<Timeout> timeouts = new ArrayList<>();
		List<String> failures = new ArrayList<>();
		List<LossReport> lossReports = new ArrayList<>();
		Set<String> finished = new HashSet<>();
		List<Stall> stalls = new ArrayList<>();
		List<Acquisition> lostOnArrival = new ArrayList<>();
		for (Path history : histories(dir)) {
			readHistory(HistoryFiles.read(history), acquisitions, timeouts, failures, lossReports, finished, stalls,
					lostOnArrival);
		}
		List<FenceWrite> fence = HistoryFiles.read(dir.resolve("fence.log"))
			.stream()
			.map((line) -> new FenceWrite(line.text("resource"), line.number("token"), line.text("writer"),
					line.text("phase"), "1".equals(line.text("accepted"))))
			.toList();
		List<KeyspaceEvent> keyspace = keyspace(dir);
		List<FaultRecord> faults = HistoryFiles.read(dir.resolve("faults.log"))
			.stream()
			.map((line) -> new FaultRecord(line.text("kind"), line.text("target"), line.number("pid"),
					line.number("start"), line.number("end"), line.textOr("detail", "")))
			.toList();
		List<String> keysLeft = HistoryFiles.read(dir.resolve("keys-at-end.log"))
			.stream()
			.map((line) -> line.text("key"))
			.toList();
		return new RunRecords(parameters, acquisitions, timeouts, failures, lossReports, finished, fence, keyspace,
				faults, keysLeft, stalls, lostOnArrival);
	}

	/**
	 * What the keyspace recorders saw, in the order it arrived: {@code keyspace.log} of a single server, or
	 * {@code keyspace-<port>.log} of every node of a cluster.
	 */
	private static List<KeyspaceEvent> keyspace(Path dir) {
		List<KeyspaceEvent> events = new ArrayList<>();
		for (Path file : files(dir, "keyspace")) {
			for (HistoryLine line : HistoryFiles.read(file)) {
				events.add(new KeyspaceEvent("keyspace".equals(line.event()) ? line.text("op") : line.event(),
						line.has("key") ? line.text("key") : null, line.number("nano")));
			}
		}
		events.sort((a, b) -> Long.compare(a.nanos() - b.nanos(), 0));
		return events;
	}

	/** The Redis key of the workers' lock for a key. */
	public static String redisKeyOf(String key) {
		return redisKeyOf(LOCK_NAME, key);
	}

	/** The Redis key of a lock of this name for a key. */
	public static String redisKeyOf(String lockName, String key) {
		return LOCK_KEYS.lockKey(lockName, key);
	}

	/** Matches the lock keys of the locks of this name, and not their waiter queues. */
	public static String lockKeyPattern(String lockName) {
		return LOCK_KEYS.lockKey(lockName, "*");
	}

	private static List<Path> histories(Path dir) {
		return files(dir, "history");
	}

	/** The files {@code <name>.log} and {@code <name>-<anything>.log} of the directory, by name. */
	private static List<Path> files(Path dir, String name) {
		String pattern = Pattern.quote(name) + "(-.*)?\\.log";
		try (Stream<Path> files = Files.list(dir)) {
			return files.filter((file) -> file.getFileName().toString().matches(pattern)).sorted().toList();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}
	private static void readHistory(List<HistoryLine> lines, List<Acquisition> acquisitions, List<Timeout> timeouts,
			List<String> failures, List<LossReport> lossReports, Set<String> finished, List<Stall> stalls,
			List<Acquisition> lostOnArrival) {
		Map<Long, HistoryLine> acquired = new HashMap<>();
		Map<Long, Acquisition.Ending> endings = new HashMap<>();
		Map<Long, Long> sectionEnds = new HashMap<>();
		for (HistoryLine line : lines) {
			switch (line.event()) {
				case "acquired" -> acquired.put(line.number("call"), line);
				case "left" -> sectionEnds.put(line.number("call"), line.number("end"));
				case "released", "lost" -> endings.put(line.number("call"), ending(line));
				case "failed" -> {
					if (line.has("token")) {
						endings.put(line.number("call"), ending(line));
					}
					else {
						failures.add(line.text("worker") + "/" + line.text("call") + " " + line.text("error"));
					}
				}
				case "timed_out" -> timeouts.add(new Timeout(line.text("worker"), line.number("call"),
						line.text("key"), line.number("start"), line.number("nano"),
						Boolean.parseBoolean(line.text("unavailable"))));
				case "lost_on_arrival" -> lostOnArrival.add(new Acquisition(line.text("worker"), line.text("thread"),
						line.number("call"), line.text("key"), line.number("token"), line.number("start"),
						line.number("nano"), 0, new Acquisition.Ending("lost", line.number("nano"), line.number("nano"),
								line.text("reason"))));
				case "lost_reported" -> lossReports.add(new LossReport(line.text("worker"), line.text("key"),
						line.number("token"), line.text("reason"), line.number("nano")));
				case "finished" -> finished.add(line.text("worker"));
				case "stalled" -> stalls.add(new Stall(line.text("worker"), line.number("from"), line.number("to")));
				case "started" -> {
					// the worker's PID, for people reading the file
				}
				default -> throw new IllegalArgumentException("Unknown history event: " + line);
			}
		}
		acquired.forEach((call, line) -> acquisitions.add(new Acquisition(line.text("worker"), line.text("thread"),
				call, line.text("key"), line.number("token"), line.number("start"), line.number("acquired"),
				sectionEnds.getOrDefault(call, 0L), endings.get(call))));
	}

	private static Acquisition.Ending ending(HistoryLine line) {
		return new Acquisition.Ending(line.event(), line.number("end"), line.number("nano"),
				line.has("reason") ? line.text("reason") : null);
	}

	private static RunParameters parameters(Path file) {
		Properties properties = new Properties();
		try (InputStream in = Files.newInputStream(file)) {
			properties.load(in);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Cannot read " + file, ex);
		}
		// Runs recorded before sessions were a parameter had none.
		Duration sessionTimeout = Duration
			.ofMillis(Long.parseLong(properties.getProperty("session-timeout-millis", "0")));
		return new RunParameters(millis(properties, "lease"), millis(properties, "wait-time"),
				millis(properties, "command-timeout"), sessionTimeout, millis(properties, "longest-hold"),
				Long.parseLong(properties.getProperty("load-start-nanos")),
				Long.parseLong(properties.getProperty("load-end-nanos")),
				Arrays.asList(properties.getProperty("workers").split(",")), properties.getProperty("description"),
				// Runs recorded before replica acknowledgement was a parameter had none.
				Integer.parseInt(properties.getProperty("replicas-acked", "0")),
				Duration.ofMillis(Long.parseLong(properties.getProperty("replica-ack-timeout-millis", "0"))),
				// Runs recorded before the leader mode all locked "torture".
				properties.getProperty("lock-name", LOCK_NAME));
	}

	private static Duration millis(Properties properties, String name) {
		String value = properties.getProperty(name + "-millis");
		if (value == null) {
			throw new IllegalArgumentException("run.properties has no " + name + "-millis");
		}
		return Duration.ofMillis(Long.parseLong(value));
	}

}
