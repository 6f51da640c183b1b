package io.github.distlock.torture.check;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.github.distlock.torture.history.HistoryLine;

/**
 * Writes a run directory by hand, in the format the workers, the fence and the recorder write, so the checker can
 * be shown histories with a known flaw. Times are milliseconds after the load started.
 */
final class SyntheticRun {

	private static final long LOAD_START = 5_000_000_000_000L;

	/** Tokens are microseconds on the lock server's clock; any large base will do. */
	private static final long TOKEN_BASE = 1_800_000_000_000_000L;

	private final Path dir;

	private final Map<String, List<HistoryLine>> histories = new LinkedHashMap<>();

	private final List<HistoryLine> fence = new ArrayList<>();

	private final List<HistoryLine> keyspace = new ArrayList<>();

	private final List<HistoryLine> faults = new ArrayList<>();

	private int replicasAcked;

	private final List<HistoryLine> keysLeft = new ArrayList<>();

	private long calls;

	private long sessionTimeoutMillis;

	SyntheticRun(Path dir) {
		this.dir = dir;
	}

	static long nanos(double millis) {
		return LOAD_START + (long) (millis * 1_000_000);
	}

	static long token(long micros) {
		return TOKEN_BASE + micros;
	}

	/** Workers with a ZooKeeper session of this timeout, which keeps a killed worker's locks until it expires. */
	SyntheticRun sessionTimeout(long millis) {
		this.sessionTimeoutMillis = millis;
		return this;
	}

	/** A worker that starts and, unless killed or told otherwise, finishes. */
	SyntheticRun worker(String name) {
		this.histories.put(name, new ArrayList<>(List.of(HistoryLine.of("started").with("worker", name)
			.with("nano", nanos(0)).with("pid", 1))));
		return this;
	}

	/**
	 * A call that waits from {@code start}, holds from {@code acquired} to {@code end}, and releases cleanly with
	 * both fence writes accepted.
	 */
	long released(String worker, String key, long token, double start, double acquired, double end) {
		long call = acquire(worker, key, token, start, acquired);
		fence(key, token, worker, call, "enter", true);
		fence(key, token, worker, call, "exit", true);
		end(worker, "released", call, key, token, start, acquired, end, null);
		return call;
	}

	long acquire(String worker, String key, long token, double start, double acquired) {
		long call = ++this.calls;
		add(worker, line("acquired", worker, acquired).with("thread", worker + "-t0").with("call", call)
			.with("key", key).with("start", nanos(start)).with("token", token).with("acquired", nanos(acquired))
			.with("hold", TimeUnit.MILLISECONDS.toNanos(10)));
		return call;
	}

	/** The record a section makes as it ends, before its lock is released. */
	void left(String worker, long call, String key, double start, double end) {
		add(worker, line("left", worker, end).with("thread", worker + "-t0").with("call", call).with("key", key)
			.with("start", nanos(start)).with("end", nanos(end)));
	}

	void end(String worker, String outcome, long call, String key, long token, double start, double acquired,
			double end, String reason) {
		HistoryLine line = line(outcome, worker, end + 1).with("thread", worker + "-t0").with("call", call)
			.with("key", key).with("start", nanos(start)).with("token", token).with("acquired", nanos(acquired))
			.with("end", nanos(end)).with("fence", "11");
		if (reason != null) {
			line.with("reason", reason);
		}
		add(worker, line);
	}

	void timedOut(String worker, String key, double start, double gaveUp) {
		add(worker, line("timed_out", worker, gaveUp).with("thread", worker + "-t0").with("call", ++this.calls)
			.with("key", key).with("start", nanos(start)).with("unavailable", false));
	}

	void lostReported(String worker, String key, long token, double at) {
		lostReported(worker, key, token, at, "NOT_OWNED");
	}

	void lostReported(String worker, String key, long token, double at, String reason) {
		add(worker, line("lost_reported", worker, at).with("thread", "distlock-watchdog").with("key", key)
			.with("token", token).with("reason", reason));
	}

	/**
	 * A call granted its lock at {@code at} with the lease already run out: the loss is reported, and the call
	 * refuses to start its section.
	 */
	void lostOnArrival(String worker, String key, long token, double start, double at, String reason) {
		lostReported(worker, key, token, at, reason);
		add(worker, line("lost_on_arrival", worker, at + 0.1).with("thread", worker + "-t0").with("call", ++this.calls)
			.with("key", key).with("start", nanos(start)).with("token", token).with("reason", reason));
	}

	/** The worker saw its own JVM stall from one time to the other ({@code StallWatch}). */
	void stalled(String worker, double from, double to) {
		add(worker, line("stalled", worker, to).with("from", nanos(from)).with("to", nanos(to)));
	}

	void fence(String key, long token, String worker, long call, String phase, boolean accepted) {
		this.fence.add(HistoryLine.of("write").with("resource", key).with("token", token)
			.with("writer", worker + "/" + call).with("phase", phase).with("accepted", accepted ? "1" : "0"));
	}

	void keyspace(String op, String key, double at) {
		this.keyspace.add(HistoryLine.of("keyspace").with("nano", nanos(at)).with("op", op)
			.with("key", RunRecordsReader.redisKeyOf(key)));
	}

	void fault(String kind, String target, double start, double end) {
		this.faults.add(HistoryLine.of("fault").with("kind", kind).with("target", target).with("pid", 42)
			.with("start", nanos(start)).with("end", nanos(end)));
	}

	void fault(String kind, String target, double start, double end, String detail) {
		this.faults.add(HistoryLine.of("fault").with("kind", kind).with("target", target).with("pid", 42)
			.with("start", nanos(start)).with("end", nanos(end)).with("detail", detail));
	}

	/** The run's {@code distlock.redis.min-replicas-acked}; 0 unless set. */
	SyntheticRun replicasAcked(int replicas) {
		this.replicasAcked = replicas;
		return this;
	}

	void keyLeft(String key) {
		this.keysLeft.add(HistoryLine.of("left").with("key", key));
	}

	/** Writes the directory; workers not in {@code unfinished} end with "finished". */
	Path write(String... unfinished) {
		try {
			StringBuilder properties = new StringBuilder();
			properties.append("description=synthetic\n").append("lease-millis=1000\n").append("wait-time-millis=2000\n")
				.append("command-timeout-millis=500\n").append("longest-hold-millis=1800\n")
				.append("session-timeout-millis=").append(this.sessionTimeoutMillis).append('\n')
				.append("load-start-nanos=").append(LOAD_START).append('\n')
				.append("load-end-nanos=").append(nanos(60_000)).append('\n')
				.append("workers=").append(String.join(",", this.histories.keySet())).append('\n')
				.append("replicas-acked=").append(this.replicasAcked).append('\n');
			Files.writeString(this.dir.resolve("run.properties"), properties);
			List<String> notFinishing = List.of(unfinished);
			for (Map.Entry<String, List<HistoryLine>> history : this.histories.entrySet()) {
				List<HistoryLine> lines = new ArrayList<>(history.getValue());
				boolean killed = this.faults.stream()
					.anyMatch((f) -> f.text("kind").equals("worker_kill") && f.text("target").equals(history.getKey()));
				if (!killed && !notFinishing.contains(history.getKey())) {
					lines.add(HistoryLine.of("finished").with("worker", history.getKey()).with("nano", nanos(60_000)));
				}
				writeLines("history-" + history.getKey() + ".log", lines);
			}
			writeLines("fence.log", this.fence);
			writeLines("keyspace.log", this.keyspace);
			writeLines("faults.log", this.faults);
			writeLines("keys-at-end.log", this.keysLeft);
			return this.dir;
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private void writeLines(String file, List<HistoryLine> lines) throws IOException {
		StringBuilder text = new StringBuilder();
		lines.forEach((line) -> text.append(line).append('\n'));
		Files.writeString(this.dir.resolve(file), text);
	}

	private void add(String worker, HistoryLine line) {
		this.histories.get(worker).add(line);
	}

	private static HistoryLine line(String event, String worker, double at) {
		return HistoryLine.of(event).with("worker", worker).with("nano", nanos(at)).with("wall", "-");
	}

}
