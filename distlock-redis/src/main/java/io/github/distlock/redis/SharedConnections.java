package io.github.distlock.redis;

import java.nio.charset.StandardCharsets;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.redisson.Redisson;
import org.redisson.api.RScript.ReturnType;
import org.redisson.api.RedissonClient;
import org.redisson.client.RedisConnection;
import org.redisson.client.RedisConnectionException;
import org.redisson.client.RedisRedirectException;
import org.redisson.client.codec.StringCodec;
import org.redisson.client.protocol.RedisCommand;
import org.redisson.config.NameMapper;
import org.redisson.connection.ConnectionManager;
import org.redisson.connection.MasterSlaveEntry;

/**
 * Sends script calls over one connection per Redis master, shared by every calling thread, as Lettuce does.
 * <p>
 * Redisson gives each call a pooled connection of its own until the call is answered, so sixteen threads locking at
 * once keep sixteen connections busy: Redis pays a read, a write and an event-loop turn per call, and the client a
 * pool checkout per call. On one shared connection, calls that arrive together are read by Redis in one read and
 * answered in one write. Each call still answers for itself, errors included: Redis answers a connection's commands in
 * the order sent, and Redisson matches each answer to its command.
 * <p>
 * The shared connection is borrowed from Redisson's own pool for the master, so it authenticates, uses TLS and
 * reconnects as the client is configured, and it is kept until {@link #close}. A call goes the ordinary way (a pooled
 * connection of its own) whenever no shared connection is ready: while one is being borrowed, while it reconnects,
 * once a failover has moved the master, and always for a client that is not Redisson's own implementation. A call
 * the master redirects (MOVED or ASK, which Redis did not run) is sent again the ordinary way, which follows the
 * redirect. Nothing else is ever sent twice: a call whose connection closed before its answer fails at once (see
 * {@link UnansweredCalls}), and its caller decides.
 */
final class SharedConnections implements AutoCloseable {

	private static final Log logger = LogFactory.getLog(SharedConnections.class);

	/** How long after a failed borrow the next is tried; calls go the ordinary way meanwhile. */
	private static final long BORROW_BACKOFF_NANOS = TimeUnit.SECONDS.toNanos(1);

	private static final Map<ReturnType, RedisCommand<?>> EVALSHA = new EnumMap<>(ReturnType.class);

	static {
		for (ReturnType type : ReturnType.values()) {
			EVALSHA.put(type, new RedisCommand<>(type.getCommand(), "EVALSHA"));
		}
	}

	/** Each script's SHA as the bytes sent: a handful of scripts, each encoded once. */
	private final ConcurrentMap<String, byte[]> shaBytes = new ConcurrentHashMap<>();

	/** Redisson's connections to each master; null when the client is not Redisson's own implementation. */
	private final @Nullable ConnectionManager connectionManager;

	private final @Nullable NameMapper nameMapper;

	private final ConcurrentMap<MasterSlaveEntry, Lane> lanes = new ConcurrentHashMap<>();

	private final AtomicLong sharedCalls = new AtomicLong();

	private final AtomicLong ordinaryCalls = new AtomicLong();

	/** Set by {@link #close}, or on finding a Redisson version without what sharing uses: calls go the ordinary way. */
	private volatile boolean closed;

	private SharedConnections(@Nullable ConnectionManager connectionManager, @Nullable NameMapper nameMapper) {
		this.connectionManager = connectionManager;
		this.nameMapper = nameMapper;
	}

	/** Shared connections of a Redisson client; none (every call the ordinary way) for any other implementation. */
	static SharedConnections of(RedissonClient client) {
		if (client instanceof Redisson redisson) {
			try {
				return new SharedConnections(redisson.getCommandExecutor().getConnectionManager(),
						redisson.getServiceManager().getNameMapper());
			}
			catch (LinkageError ex) {
				unsupported(ex);
			}
		}
		return none();
	}

	/**
	 * The connection sharing reaches into Redisson's connection classes, which are public but not its API: a Redisson
	 * version that changed them is told about once, and calls go the ordinary way.
	 */
	private static void unsupported(LinkageError ex) {
		logger.warn("distlock cannot share connections with this Redisson version (" + ex
				+ "); lock calls use pooled connections, one per call in flight");
	}

	/** No shared connection: every call goes the ordinary way. */
	static SharedConnections none() {
		return new SharedConnections(null, null);
	}

	/** Calls sent on a shared connection so far. */
	long sharedCalls() {
		return this.sharedCalls.get();
	}

	/** Calls sent the ordinary way so far (no shared connection ready, or redirected). */
	long ordinaryCalls() {
		return this.ordinaryCalls.get();
	}

	/**
	 * Runs a script by SHA on the shared connection of the master of its first key, or the ordinary way.
	 * @param timeoutMillis the call's timeout, or -1 for the client's own
	 * @param ordinary sends the same call the ordinary way
	 */
	<R> CompletableFuture<R> evalSha(String sha, ReturnType returnType, List<Object> keys, Object[] args,
			long timeoutMillis, Supplier<CompletableFuture<R>> ordinary) {
		try {
			Lane lane = laneFor(keys);
			RedisConnection connection = (lane != null) ? lane.ready() : null;
			if (lane != null && connection != null) {
				Channel channel = connection.getChannel();
				CompletableFuture<R> reply = send(connection, sha, returnType, keys, args, timeoutMillis);
				lane.track(channel, reply);
				this.sharedCalls.incrementAndGet();
				return reply.exceptionallyCompose((ex) -> {
					if (LockScripts.unwrap(ex) instanceof RedisRedirectException) {
						this.ordinaryCalls.incrementAndGet();
						return ordinary.get();
					}
					return CompletableFuture.failedFuture(LockScripts.unwrap(ex));
				});
			}
		}
		catch (LinkageError ex) {
			if (!this.closed) {
				this.closed = true;
				unsupported(ex);
			}
		}
		this.ordinaryCalls.incrementAndGet();
		return ordinary.get();
	}

	private @Nullable Lane laneFor(List<Object> keys) {
		ConnectionManager manager = this.connectionManager;
		NameMapper names = this.nameMapper;
		if (manager == null || names == null || this.closed || keys.isEmpty()) {
			return null;
		}
		return laneOf(manager, names.map((String) keys.get(0)));
	}

	@SuppressWarnings("unchecked")
	private <R> CompletableFuture<R> send(RedisConnection connection, String sha, ReturnType returnType,
			List<Object> keys, Object[] args, long timeoutMillis) {
		// EVALSHA sha numkeys key... arg..., keys named as Redisson names them (its NameMapper), as its own call would.
		// Written as bytes: Redisson copies a byte array as it is, where it would encode a string into a pooled buffer
		// of its own per argument first (1-4 % of a call on one thread: the benchmark's --client-floor).
		Object[] params = new Object[2 + keys.size() + args.length];
		params[0] = this.shaBytes.computeIfAbsent(sha, (text) -> text.getBytes(StandardCharsets.US_ASCII));
		params[1] = Integer.toString(keys.size()).getBytes(StandardCharsets.US_ASCII);
		// Only a call on a lane comes here, and only a client with Redisson's connections and names has lanes.
		NameMapper names = Objects.requireNonNull(this.nameMapper, "a shared connection without Redisson's names");
		for (int i = 0; i < keys.size(); i++) {
			params[2 + i] = names.map((String) keys.get(i)).getBytes(StandardCharsets.UTF_8);
		}
		for (int i = 0; i < args.length; i++) {
			params[2 + keys.size() + i] = String.valueOf(args[i]).getBytes(StandardCharsets.UTF_8);
		}
		RedisCommand<?> command = EVALSHA.get(returnType);
		return connection.<Object, R>async(timeoutMillis, StringCodec.INSTANCE, (RedisCommand<Object>) command, params)
			.toCompletableFuture();
	}

	/**
	 * Which master Redisson sends a call about this key to now, as an object to group calls by; null when that is
	 * not known (no topology yet, or not Redisson's own client).
	 */
	@Nullable Object masterOf(String key) {
		if (this.connectionManager == null || this.closed) {
			return null;
		}
		try {
			return this.connectionManager.getWriteEntry(this.connectionManager.calcSlot(key));
		}
		catch (LinkageError ex) {
			return null;
		}
	}

	private @Nullable Lane laneOf(ConnectionManager manager, String key) {
		MasterSlaveEntry entry = manager.getWriteEntry(manager.calcSlot(key));
		if (entry == null) {
			return null;
		}
		Lane lane = this.lanes.get(entry);
		return (lane != null) ? lane : this.lanes.computeIfAbsent(entry, Lane::new);
	}

	/** Gives every shared connection back to its pool; later calls go the ordinary way. */
	@Override
	public void close() {
		this.closed = true;
		try {
			this.lanes.values().forEach(Lane::giveBack);
		}
		catch (LinkageError ex) {
			// Told when found; the client closes the connections with it.
		}
		this.lanes.clear();
	}

	/** The shared connection to one master. */
	private final class Lane {

		private final MasterSlaveEntry entry;

		private volatile @Nullable RedisConnection connection;

		private final AtomicBoolean borrowing = new AtomicBoolean();

		private volatile long nextBorrowNanos = System.nanoTime();

		/** The calls sent on the shared connection's current channel and not answered yet. */
		private volatile @Nullable UnansweredCalls unanswered;

		Lane(MasterSlaveEntry entry) {
			this.entry = entry;
		}

		/** The shared connection if it can take a call now; otherwise null, and a borrow started if none is. */
		@Nullable RedisConnection ready() {
			RedisConnection current = this.connection;
			if (current != null) {
				if (current.getRedisClient() == this.entry.getClient()) {
					if (current.isActive()) {
						return current;
					}
					if (!current.isClosed()) {
						// Reconnecting by itself (Redisson's watchdog): the ordinary way until it is back.
						return null;
					}
				}
				// Closed for good, or a failover made another server the master: give it back and borrow anew.
				retire(current);
			}
			borrow();
			return null;
		}

		private void borrow() {
			if (System.nanoTime() - this.nextBorrowNanos < 0 || !this.borrowing.compareAndSet(false, true)) {
				return;
			}
			this.entry.connectionWriteOp(EVALSHA.get(ReturnType.LIST)).whenComplete((borrowed, ex) -> {
				if (ex != null) {
					this.nextBorrowNanos = System.nanoTime() + BORROW_BACKOFF_NANOS;
				}
				else {
					this.connection = borrowed;
					if (SharedConnections.this.closed) {
						// Closed while the borrow was under way: give it straight back.
						giveBack();
					}
				}
				this.borrowing.set(false);
			});
		}

		private void retire(RedisConnection current) {
			synchronized (this) {
				if (this.connection != current) {
					return;
				}
				this.connection = null;
			}
			try {
				this.entry.releaseWrite(current);
			}
			catch (RuntimeException ex) {
				// The client is shutting down (it may be closed before the engine): its connections close with it.
			}
		}

		/** Keeps a call sent on a channel until it is answered, to fail it at once should the channel close first. */
		void track(Channel channel, CompletableFuture<?> call) {
			UnansweredCalls calls = this.unanswered;
			if (calls == null || calls.channel != channel) {
				synchronized (this) {
					calls = this.unanswered;
					if (calls == null || calls.channel != channel) {
						calls = new UnansweredCalls(channel);
						this.unanswered = calls;
					}
				}
			}
			calls.add(call);
		}

		void giveBack() {
			RedisConnection current = this.connection;
			if (current != null) {
				retire(current);
			}
		}

	}

	/**
	 * The calls sent on one channel (the socket under a connection, replaced when Redisson reconnects) that have no
	 * answer yet. When the channel closes they fail at once, instead of each waiting out its command timeout, which
	 * is what Redisson leaves a call in flight on a closed connection to, on a connection of its own as well
	 * (measured: sixteen calls cut off with a 10 s timeout ended after 10.1 s). Whether such a call ran is unknown
	 * either way, as after a timeout, and its caller decides.
	 */
	private static final class UnansweredCalls implements ChannelFutureListener {

		final Channel channel;

		private final Set<CompletableFuture<?>> calls = ConcurrentHashMap.newKeySet();

		UnansweredCalls(Channel channel) {
			this.channel = channel;
			channel.closeFuture().addListener(this);
		}

		void add(CompletableFuture<?> call) {
			this.calls.add(call);
			call.whenComplete((result, ex) -> this.calls.remove(call));
			if (!this.channel.isOpen()) {
				// Closed before the call was added: the listener may have run already.
				failAll();
			}
		}

		@Override
		public void operationComplete(ChannelFuture closed) {
			failAll();
		}

		private void failAll() {
			for (CompletableFuture<?> call : this.calls) {
				call.completeExceptionally(new RedisConnectionException("The connection to Redis at "
						+ this.channel.remoteAddress() + " closed before the call was answered"));
			}
		}

	}

}
