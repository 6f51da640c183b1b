package io.github.distlock.benchmarks.redis;

import java.time.Duration;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.github.distlock.fixtures.redis.RespClient;

/**
 * Records, through Redis' MONITOR, exactly which commands an action made Redis run, telling the ones a client sent
 * (round trips) from the ones a script called.
 * <p>
 * MONITOR slows Redis down, so it is only used for the structural counts, never while timing. The action is framed
 * by two ECHO markers sent on a side connection; Redis runs commands one at a time, so everything between the markers
 * in the stream, from whichever connection, is what happened during the action.
 */
public final class CommandMonitor implements AutoCloseable {

	/** Keep-alives and the harness's own commands: no lock operation sends them. */
	private static final Set<String> IGNORED = Set.of("PING", "ECHO", "INFO");

	private static final AtomicLong MARKERS = new AtomicLong();

	private final RedisUnderTest redis;

	private final RespClient connection;

	private final Thread reader;

	private volatile Capture capture;

	public CommandMonitor(RedisUnderTest redis) {
		this.redis = redis;
		// No read timeout: between two recordings the connection may stay silent for as long as a scenario runs.
		this.connection = new RespClient(redis.host(), redis.port(), Duration.ZERO);
		// The OK comes before any traced command, so nothing sent from here on is missed.
		this.connection.call("MONITOR");
		this.reader = new Thread(this::read, "redis-monitor");
		this.reader.setDaemon(true);
		this.reader.start();
	}

	/** Runs {@code action} and returns the commands Redis executed meanwhile. */
	public CommandTrace record(Runnable action) {
		String marker = "distlock-bench-marker-" + MARKERS.incrementAndGet();
		Capture current = new Capture(marker);
		this.capture = current;
		this.redis.echo(marker + "-start");
		action.run();
		this.redis.echo(marker + "-end");
		try {
			return current.done.get(30, TimeUnit.SECONDS);
		}
		catch (Exception ex) {
			throw new IllegalStateException("MONITOR did not show the end marker " + marker, ex);
		}
		finally {
			this.capture = null;
		}
	}

	/** Each MONITOR line arrives as a status reply of its own. */
	private void read() {
		try {
			while (true) {
				Object line = this.connection.readReply();
				Capture current = this.capture;
				if (current != null && line instanceof String text) {
					current.accept(text);
				}
			}
		}
		catch (RuntimeException ex) {
			// The connection is closed by close(); nothing is recording any more.
		}
	}

	@Override
	public void close() {
		this.connection.close();
	}

	/** The lines between one pair of markers. */
	private static final class Capture {

		private final String marker;

		private final Map<String, Long> client = new HashMap<>();

		private final Map<String, Long> script = new HashMap<>();

		private final CompletableFuture<CommandTrace> done = new CompletableFuture<>();

		private boolean started;

		Capture(String marker) {
			this.marker = marker;
		}

		/** A line looks like {@code 1700000000.123456 [0 127.0.0.1:53412] "EVALSHA" "..."}, or {@code [0 lua]}. */
		void accept(String line) {
			if (line.contains(this.marker + "-start")) {
				this.started = true;
				return;
			}
			if (line.contains(this.marker + "-end")) {
				this.done.complete(new CommandTrace(Map.copyOf(this.client), Map.copyOf(this.script)));
				return;
			}
			int open = line.indexOf('[');
			int close = line.indexOf(']', open + 1);
			if (!this.started || open < 0 || close < 0) {
				return;
			}
			boolean fromScript = line.substring(open + 1, close).endsWith(" lua");
			int quote = line.indexOf('"', close);
			int end = line.indexOf('"', quote + 1);
			if (quote < 0 || end < 0) {
				return;
			}
			String command = line.substring(quote + 1, end).toUpperCase(Locale.ROOT);
			if (!IGNORED.contains(command)) {
				(fromScript ? this.script : this.client).merge(command, 1L, Long::sum);
			}
		}

	}

}
