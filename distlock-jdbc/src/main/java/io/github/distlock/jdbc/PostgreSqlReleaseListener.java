package io.github.distlock.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArraySet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import javax.sql.DataSource;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/**
 * Hears, on PostgreSQL, every release of a lock by any instance ({@code LISTEN}; a release sends {@code pg_notify}
 * in its own statement) and wakes this engine's waiters for it, so a waiter in another instance gets the lock in
 * about one round trip instead of a poll interval. One listener per {@link DataSource} serves every engine of the
 * JVM on it, and keeps one connection of the pool for itself while any of them runs. When the connection breaks it
 * connects again; meanwhile waiters fall back to polling, so nothing is missed for longer than a poll interval.
 */
final class PostgreSqlReleaseListener {

	private static final Map<DataSource, PostgreSqlReleaseListener> shared = new IdentityHashMap<>();

	private static final Log logger = LogFactory.getLog(PostgreSqlReleaseListener.class);

	/** How long one wait for notifications lasts, so that closing is noticed. */
	private static final int WAIT_MILLIS = 250;

	private static final long RECONNECT_NANOS = TimeUnit.SECONDS.toNanos(1);

	private final DataSource dataSource;

	private final String channel;

	private final Set<LocalReleaseSignals> subscribers = new CopyOnWriteArraySet<>();

	private final Thread thread;

	private volatile boolean running = true;

	private volatile boolean listening;

	private final AtomicLong heard = new AtomicLong();

	private PostgreSqlReleaseListener(DataSource dataSource, String channel) {
		this.dataSource = dataSource;
		this.channel = channel;
		this.thread = new Thread(this::listen, "distlock-jdbc-listener");
		this.thread.setDaemon(true);
		this.thread.start();
	}

	/**
	 * Wakes the given engine's waiters on every release heard on the data source's database, starting the data
	 * source's listener if this is its first engine.
	 */
	static Subscription subscribe(DataSource dataSource, String channel, LocalReleaseSignals signals) {
		PostgreSqlReleaseListener listener;
		synchronized (shared) {
			listener = shared.computeIfAbsent(dataSource, (source) -> new PostgreSqlReleaseListener(source, channel));
			listener.subscribers.add(signals);
		}
		return new Subscription(listener, signals);
	}

	/** One engine's share of a listener. */
	static final class Subscription implements AutoCloseable {

		private final PostgreSqlReleaseListener listener;

		private final LocalReleaseSignals signals;

		private Subscription(PostgreSqlReleaseListener listener, LocalReleaseSignals signals) {
			this.listener = listener;
			this.signals = signals;
		}

		boolean isListening() {
			return this.listener.listening;
		}

		long heard() {
			return this.listener.heard.get();
		}

		@Override
		public void close() {
			boolean last;
			synchronized (shared) {
				this.listener.subscribers.remove(this.signals);
				last = this.listener.subscribers.isEmpty();
				if (last) {
					shared.remove(this.listener.dataSource, this.listener);
				}
			}
			if (last) {
				this.listener.stop();
			}
		}

	}

	/** Whether PostgreSQL can be used to wake waiters here: its driver is on the class path. */
	static boolean isAvailable() {
		try {
			Class.forName("org.postgresql.PGConnection", false, PostgreSqlReleaseListener.class.getClassLoader());
			return true;
		}
		catch (ClassNotFoundException ex) {
			return false;
		}
	}

	private void listen() {
		boolean warned = false;
		while (this.running) {
			try (Connection connection = this.dataSource.getConnection()) {
				connection.setAutoCommit(true);
				try (Statement statement = connection.createStatement()) {
					statement.execute("LISTEN " + this.channel);
				}
				PGConnection postgres = connection.unwrap(PGConnection.class);
				this.listening = true;
				warned = false;
				while (this.running) {
					PGNotification[] notifications = postgres.getNotifications(WAIT_MILLIS);
					if (notifications != null) {
						for (PGNotification notification : notifications) {
							this.heard.incrementAndGet();
							for (LocalReleaseSignals signals : this.subscribers) {
								signals.released(notification.getParameter());
							}
						}
					}
				}
			}
			catch (SQLException | RuntimeException ex) {
				this.listening = false;
				if (this.running && !warned) {
					logger.warn("distlock cannot listen for lock releases on PostgreSQL (" + ex.getMessage()
							+ "); waiters in other instances poll until it can again");
					warned = true;
				}
				pause();
			}
		}
		this.listening = false;
	}

	private void pause() {
		try {
			TimeUnit.NANOSECONDS.sleep(RECONNECT_NANOS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			this.running = false;
		}
	}

	private void stop() {
		this.running = false;
		this.thread.interrupt();
		try {
			this.thread.join(TimeUnit.SECONDS.toMillis(2));
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}
