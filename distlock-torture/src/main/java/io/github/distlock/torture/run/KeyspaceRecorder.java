package io.github.distlock.torture.run;

import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.github.distlock.fixtures.redis.RespClient;
import io.github.distlock.torture.history.HistoryLine;
import io.github.distlock.torture.history.HistoryWriter;

/**
 * A witness outside the library: subscribes to the lock server's keyspace notifications for the lock keys and
 * records every event ({@code del} on release, {@code expired} when a lease ran out, {@code expire} on renewal)
 * with the time it arrived. Reconnects by itself after the server is restarted, and says so in the record, since
 * events of the gap are lost.
 */
final class KeyspaceRecorder implements AutoCloseable {

	private static final String CHANNEL_PREFIX = "__keyspace@0__:";

	private final int port;

	private final String keyPattern;

	private final HistoryWriter out;

	private final Thread thread;

	private final CountDownLatch firstSubscription = new CountDownLatch(1);

	private volatile boolean stopped;

	private volatile RespClient connection;

	KeyspaceRecorder(int port, String keyPattern, Path file) {
		this.port = port;
		this.keyPattern = keyPattern;
		this.out = new HistoryWriter(file);
		this.thread = new Thread(this::record, "keyspace-recorder");
		this.thread.setDaemon(true);
	}

	/** Starts recording and returns once the first subscription is confirmed. */
	void start(Duration timeout) throws InterruptedException {
		this.thread.start();
		if (!this.firstSubscription.await(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
			throw new IllegalStateException("No keyspace subscription on port " + this.port + " within " + timeout);
		}
	}

	private void record() {
		while (!this.stopped) {
			// No read timeout: a subscription is silent for as long as no lock key changes, or Redis is paused.
			try (RespClient connection = new RespClient("127.0.0.1", this.port, Duration.ZERO)) {
				this.connection = connection;
				handle((List<?>) connection.call("PSUBSCRIBE", CHANNEL_PREFIX + this.keyPattern));
				while (!this.stopped) {
					handle((List<?>) connection.readReply());
				}
			}
			catch (RuntimeException ex) {
				if (!this.stopped) {
					this.out.write(line("disconnected").with("error", cause(ex).getClass().getSimpleName()));
					pauseBeforeReconnecting();
				}
			}
		}
	}

	/** The I/O failure itself (refused, reset, closed) rather than the client's unchecked wrapper. */
	private static Throwable cause(RuntimeException ex) {
		return (ex instanceof UncheckedIOException && ex.getCause() != null) ? ex.getCause() : ex;
	}

	private void handle(List<?> message) {
		String kind = (String) message.get(0);
		if ("psubscribe".equals(kind)) {
			this.out.write(line("subscribed"));
			this.firstSubscription.countDown();
		}
		else if ("pmessage".equals(kind)) {
			String key = ((String) message.get(2)).substring(CHANNEL_PREFIX.length());
			this.out.write(line("keyspace").with("op", message.get(3)).with("key", key));
		}
	}

	private static HistoryLine line(String event) {
		return HistoryLine.of(event).with("nano", System.nanoTime()).with("wall", Instant.now());
	}

	private void pauseBeforeReconnecting() {
		try {
			// The server is down or restarting; there is nothing to wait on but time.
			Thread.sleep(20);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			this.stopped = true;
		}
	}

	@Override
	public void close() throws InterruptedException {
		this.stopped = true;
		RespClient current = this.connection;
		if (current != null) {
			// Unblocks the reader.
			current.close();
		}
		this.thread.join(5000);
		this.out.close();
	}

}
