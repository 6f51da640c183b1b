package io.github.distlock.redis;

import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.jspecify.annotations.Nullable;
import org.redisson.api.RScript.ReturnType;
import org.redisson.client.RedisException;
import org.redisson.client.RedisNoScriptException;

/**
 * What one caller's acquisition sends to Redis, with the keys and arguments that stay the same from one attempt to
 * the next: its attempts (which may queue it), a single try, the withdrawal of its queue entry, and the release of a
 * lock it may have been given unheard. It remembers the last attempt sent, whose answer may still be on its way.
 */
final class AcquireScripts {

	/** How much longer than the caller's wait its queue entry may live, for clock and delivery slack. */
	private static final long QUEUE_TTL_MARGIN_MILLIS = 5_000;

	private final RedisLockEngine engine;

	private final LockScripts scripts;

	private final String redisKey;

	private final String queueKey;

	private final String holderPrefix;

	/** Where a shared lock (a side of a read/write lock, or a permit) lives; null for an exclusive lock. */
	private final @Nullable SharedLock shared;

	private final long leaseMillis;

	/** This caller's queue entry, or "" for a single try. */
	private final String queueMember;

	/**
	 * The keys of {@code acquire.lua} for a caller that may wait, of {@code try.lua} for a single try, of the shared
	 * lock's script for a shared lock.
	 */
	private final List<Object> acquireKeys;

	/**
	 * The last attempt sent, with its answer to come: a caller interrupted while it is on its way waits for it before
	 * it withdraws (see {@link #awaitInFlight()}).
	 */
	private @Nullable CompletableFuture<?> inFlight;

	/**
	 * @param redisKey the exclusive lock's key, or a shared lock's {@link SharedLock#writerKey()}
	 * @param waitMillis the caller's wait: 0 for a single try, which never queues
	 */
	AcquireScripts(RedisLockEngine engine, String redisKey, String queueKey, String holderPrefix,
			@Nullable SharedLock shared, long leaseMillis, long waitMillis) {
		this.engine = engine;
		this.scripts = engine.scripts();
		this.redisKey = redisKey;
		this.queueKey = queueKey;
		this.holderPrefix = holderPrefix;
		this.shared = shared;
		this.leaseMillis = leaseMillis;
		this.queueMember = (waitMillis <= 0) ? "" : (shared != null)
				? shared.queueMember(holderPrefix, leaseMillis, waitMillis)
				: holderPrefix + leaseMillis + "|" + waitMillis;
		this.acquireKeys = (shared != null) ? shared.keys()
				: this.queueMember.isEmpty() ? List.of(redisKey, engine.tokenFloor(redisKey))
						: List.of(redisKey, queueKey, engine.tokenFloor(redisKey));
	}

	/** Whether the caller tries once and never queues. */
	boolean singleTry() {
		return this.queueMember.isEmpty();
	}

	/**
	 * One attempt, which queues the caller when the lock is held.
	 * @param deadlineNanos when the caller's wait ends: its queue entry lives that long, and a margin
	 * @param queued whether an earlier attempt queued the caller
	 * @return the script's reply: taken (1, token), handed over (2, token) or queued (0, poll hint, server time)
	 * @throws RedisException when Redis refused or did not answer
	 */
	List<Long> attempt(long deadlineNanos, boolean queued) throws InterruptedException {
		long queueTtlMillis = TimeUnit.NANOSECONDS.toMillis(Math.max(0, deadlineNanos - System.nanoTime()))
				+ QUEUE_TTL_MARGIN_MILLIS;
		String wasQueued = queued ? "1" : "0";
		if (this.shared != null) {
			return send(LockScripts.SHARED_ACQUIRE, ReturnType.LIST, this.holderPrefix, this.leaseMillis,
					this.queueMember, queueTtlMillis, wasQueued, this.shared.mode(), this.shared.permits(),
					this.engine.releaseChannel(this.redisKey));
		}
		return send(LockScripts.ACQUIRE, ReturnType.LIST, this.holderPrefix, this.leaseMillis, this.queueMember,
				queueTtlMillis, wasQueued);
	}

	/**
	 * A single try of an exclusive lock ({@code try.lua}).
	 * @return the token when taken now, minus the token when it already was this holder's, 0 when held by another
	 */
	long tryExclusive() throws InterruptedException {
		Long token = send(LockScripts.TRY, ReturnType.LONG, this.holderPrefix, this.leaseMillis);
		return token;
	}

	/**
	 * Sent by its digest, and by its text when Redis forgot it (a restart, SCRIPT FLUSH), which loads it; then waited
	 * for on this thread, so that an interrupt ends the wait at once while the attempt stays known until its answer
	 * comes. Nothing is chained to the reply, so the I/O thread that completes it only wakes this one.
	 */
	private <R> R send(LockScripts.Script lua, ReturnType returnType, Object... args) throws InterruptedException {
		try {
			R reply;
			try {
				reply = awaitAnswer(this.scripts.sendBySha(lua, returnType, this.acquireKeys, args));
			}
			catch (RedisNoScriptException ex) {
				reply = awaitAnswer(this.scripts.sendByText(lua, returnType, this.acquireKeys, args));
			}
			this.scripts.answered();
			return reply;
		}
		catch (RedisException ex) {
			this.scripts.failed(ex);
			throw ex;
		}
	}

	private <R> R awaitAnswer(CompletableFuture<R> reply) throws InterruptedException {
		this.inFlight = reply;
		try {
			return reply.get();
		}
		catch (ExecutionException ex) {
			throw LockScripts.asRedisException(Objects.requireNonNullElse(ex.getCause(), ex));
		}
	}

	/**
	 * Waits, up to its command timeout, for the answer of an attempt still on its way: whatever goes out next goes on
	 * another connection, and Redis could run it before the attempt (after a pause, say).
	 * @return whether the caller was interrupted (again) meanwhile, to be told once what follows is sent
	 */
	boolean awaitInFlight() {
		CompletableFuture<?> last = this.inFlight;
		if (last == null || last.isDone()) {
			return false;
		}
		try {
			last.get(this.scripts.answerBound().toNanos(), TimeUnit.NANOSECONDS);
		}
		catch (InterruptedException ex) {
			return true;
		}
		catch (ExecutionException | TimeoutException ex) {
			// Answered with a failure, or not within its timeout: what follows is all there is left to do.
		}
		return false;
	}

	/**
	 * Leaves the queue.
	 * @return the token of a lock handed to the caller before it left, or 0
	 */
	long withdraw() {
		Long token = (this.shared != null)
				? this.scripts.run(LockScripts.SHARED_WITHDRAW, ReturnType.LONG, this.shared.keys(), withdrawArgs())
				: this.scripts.run(LockScripts.WITHDRAW, ReturnType.LONG, List.of(this.redisKey, this.queueKey),
						withdrawArgs());
		return token;
	}

	/** Leaves the queue without waiting for the answer. */
	void withdrawWithoutWaiting() {
		if (this.shared != null) {
			this.scripts.runAsync(LockScripts.SHARED_WITHDRAW, ReturnType.LONG, this.shared.keys(), withdrawArgs());
		}
		else {
			this.scripts.runAsync(LockScripts.WITHDRAW, ReturnType.LONG, List.of(this.redisKey, this.queueKey),
					withdrawArgs());
		}
	}

	private Object[] withdrawArgs() {
		return (this.shared != null) ? new Object[] { this.holderPrefix, this.queueMember, this.shared.mode(),
				this.engine.releaseChannel(this.redisKey) } : new Object[] { this.holderPrefix, this.queueMember };
	}

	/** Releases, without waiting for the answer, a lock this caller may have been given without hearing of it. */
	void releaseQuietly() {
		this.engine.releaseQuietly(this.redisKey, this.queueKey, this.holderPrefix, this.shared);
	}

}
