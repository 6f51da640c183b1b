package io.github.distlock.torture.run;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

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

	private volatile Socket socket;

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
			try (Socket connection = new Socket()) {
				this.socket = connection;
				connection.connect(new InetSocketAddress("127.0.0.1", this.port), 1000);
				connection.getOutputStream()
					.write(RespReader.command("PSUBSCRIBE", CHANNEL_PREFIX + this.keyPattern));
				RespReader reader = new RespReader(new BufferedInputStream(connection.getInputStream()));
				while (!this.stopped) {
					handle((List<?>) reader.read());
				}
			}
			catch (IOException | RuntimeException ex) {
				if (!this.stopped) {
					this.out.write(line("disconnected").with("error", ex.getClass().getSimpleName()));
					pauseBeforeReconnecting();
				}
			}
		}
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
		Socket current = this.socket;
		if (current != null) {
			try {
				current.close();
			}
			catch (IOException ex) {
				// closing only unblocks the reader
			}
		}
		this.thread.join(5000);
		this.out.close();
	}

}
