package io.github.distlock.torture.worker;

import java.time.Instant;

import io.github.distlock.LostLock;
import io.github.distlock.torture.history.HistoryLine;
import io.github.distlock.torture.history.HistoryWriter;

/**
 * Writes a worker's events, one line each, with both clocks: {@code System.nanoTime()} (the host-wide monotonic
 * clock, which orders events across the JVMs of one machine) and the wall clock (for people reading the file).
 */
public final class WorkerHistory implements AutoCloseable {

	private final String worker;

	private final HistoryWriter writer;

	public WorkerHistory(String worker, HistoryWriter writer) {
		this.worker = worker;
		this.writer = writer;
	}

	void started(long pid) {
		write(line("started").with("pid", pid));
	}

	void finished() {
		write(line("finished"));
	}

	void acquired(Section section) {
		write(call("acquired", section).with("token", section.token)
			.with("acquired", section.acquiredNanos)
			.with("hold", section.holdNanos));
	}

	/** The section is over and the lock about to be released: written while it is still held. */
	void left(Section section) {
		write(call("left", section).with("end", section.endNanos));
	}

	void released(Section section) {
		write(ended("released", section));
	}

	void lost(Section section, String reason) {
		write(ended("lost", section).with("reason", reason));
	}

	/**
	 * The lock was granted with its lease already run out by the worker's clock, so the call refused to start the
	 * section: nothing was held, and the loss was reported before this line.
	 */
	void lostOnArrival(Section section, long token, String reason) {
		write(call("lost_on_arrival", section).with("token", token).with("reason", reason));
	}

	/**
	 * A leader's term lost before any section ran in it (in the leader mode), as a grant lost on arrival: its lock
	 * was held from the start time on, with nothing done under it.
	 */
	void termLostUnused(long call, long startNanos, LostLock lost) {
		write(line("lost_on_arrival").with("thread", Thread.currentThread().getName())
			.with("call", call)
			.with("key", lost.key())
			.with("start", startNanos)
			.with("token", lost.token())
			.with("reason", lost.reason()));
	}

	void failed(Section section, Throwable failure) {
		HistoryLine line = section.acquired() ? ended("failed", section) : call("failed", section);
		write(line.with("error", failure.getClass().getSimpleName()));
	}

	void timedOut(Section section, boolean storeUnavailable) {
		write(call("timed_out", section).with("unavailable", storeUnavailable));
	}

	/** A loss as the library reports it to its listeners, possibly while the section still runs. */
	void lostReported(LostLock lost) {
		write(line("lost_reported").with("thread", Thread.currentThread().getName())
			.with("key", lost.key())
			.with("token", lost.token())
			.with("reason", lost.reason()));
	}

	/** The worker's JVM did not run its stall watch from one moment to the other ({@link StallWatch}). */
	void stalled(long fromNanos, long toNanos) {
		write(line("stalled").with("from", fromNanos).with("to", toNanos));
	}

	private HistoryLine ended(String event, Section section) {
		return call(event, section).with("token", section.token)
			.with("acquired", section.acquiredNanos)
			.with("end", section.endNanos)
			.with("fence", section.fenceAnswers.isEmpty() ? "-" : section.fenceAnswers);
	}

	private HistoryLine call(String event, Section section) {
		return line(event).with("thread", section.thread)
			.with("call", section.call)
			.with("key", section.getKey())
			.with("start", section.startNanos);
	}

	private HistoryLine line(String event) {
		// nano first: the checker orders by it; wall is for people.
		return HistoryLine.of(event).with("worker", this.worker).with("nano", System.nanoTime())
			.with("wall", Instant.now());
	}

	private void write(HistoryLine line) {
		this.writer.write(line);
	}

	@Override
	public void close() {
		this.writer.close();
	}

}
