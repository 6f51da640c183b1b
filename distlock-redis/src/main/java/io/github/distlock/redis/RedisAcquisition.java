package io.github.distlock.redis;

import java.time.Duration;
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

import io.github.distlock.LockAcquisitionException;
import io.github.distlock.engine.LockRequest;

/**
 * One caller's way to a lock: attempts, queueing for a hand-over, waiting, and giving up.
 * <p>
 * A first attempt takes a free lock at once. When the lock is held and the caller may wait, the same attempt puts
 * it in the lock's queue in Redis; the holder's release then hands the lock straight to the first live waiter and
 * announces it, so a hand-over costs the waiter no further call and newcomers cannot cut in. A lost announcement
 * only delays the waiter until its next poll, which finds the lock already handed to it. Of the threads of one
 * engine, only one at a time waits in Redis for a given lock ({@link Turnstiles}).
 */
final class RedisAcquisition {

	/** Pause between attempts while the store cannot be reached. */
	private static final long UNREACHABLE_BACKOFF_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

	/**
	 * Longest pause between attempts while the lock's subscription is not confirmed (on its way, or failed): a
	 * hand-over then goes unheard, and would otherwise wait for the next poll, up to a second later.
	 */
	private static final long UNSUBSCRIBED_POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

	/** How often a waiter on a subscription of its own looks whether the subscription still stands. */
	private static final long SUBSCRIPTION_CHECK_NANOS = TimeUnit.MILLISECONDS.toNanos(250);

	/** How much longer than the caller's wait its queue entry may live, for clock and delivery slack. */
	private static final long QUEUE_TTL_MARGIN_MILLIS = 5_000;

	private final RedisLockEngine engine;

	private final LockRequest request;

	private final String redisKey;

	private final String queueKey;

	/**
	 * The keys of {@code acquire.lua} for a caller that may wait, of {@code try.lua} for a single try, of the shared
	 * lock's script for a shared lock: the same for every attempt.
	 */
	private final List<Object> acquireKeys;

	private final String holderPrefix;

	/** Where a shared lock (a side of a read/write lock, or a permit) lives; null for an exclusive lock. */
	private final @Nullable SharedLock shared;

	private final long leaseMillis;

	private final long startNanos;

	private final long deadlineNanos;

	/** This caller's queue entry, or "" for a single try. */
	private final String queueMember;

	private boolean queued;

	/**
	 * An attempt that may have queued this caller was sent, heard or not: an interrupt can cut the reply off after
	 * Redis ran the script, so giving up must withdraw even when no reply said "queued".
	 */
	private boolean sent;

	/**
	 * The last pause ended without an announcement: a hand-over found by the next attempt was not heard, and the
	 * subscription that should have brought it may no longer reach the lock's node.
	 */
	private boolean unheard;

	/** A pairing of local and server time from the last failed attempt, to date a hand-over on the local clock. */
	private long clockSentAtNanos;

	private long clockServerMicros;

	/**
	 * @param redisKey the exclusive lock's key, or a shared lock's {@link SharedLock#writerKey()}: what local waiters
	 * line up for and announcements name
	 * @param shared where a shared lock lives, or null for an exclusive lock
	 */
	RedisAcquisition(RedisLockEngine engine, LockRequest request, String redisKey, String queueKey,
			String holderPrefix, @Nullable SharedLock shared) {
		this.engine = engine;
		this.request = request;
		this.redisKey = redisKey;
		this.queueKey = queueKey;
		this.holderPrefix = holderPrefix;
		this.shared = shared;
		this.leaseMillis = request.initialLease().toMillis();
		this.startNanos = System.nanoTime();
		this.deadlineNanos = this.startNanos + request.waitTime().toNanos();
		long waitMillis = request.waitTime().toMillis();
		this.queueMember = (waitMillis <= 0) ? "" : (shared != null)
				? shared.queueMember(holderPrefix, this.leaseMillis, waitMillis)
				: holderPrefix + this.leaseMillis + "|" + waitMillis;
		this.clockSentAtNanos = this.startNanos;
		this.acquireKeys = (shared != null) ? shared.keys()
				: this.queueMember.isEmpty() ? List.of(redisKey, engine.tokenFloor(redisKey))
						: List.of(redisKey, queueKey, engine.tokenFloor(redisKey));
	}

	/**
	 * The last attempt sent, with its answer to come: a caller interrupted while it is on its way waits for it before
	 * it withdraws (see {@link #giveUp()}).
	 */
	private @Nullable CompletableFuture<?> inFlight;

	RedisLockHandle run() throws InterruptedException {
		if (this.queueMember.isEmpty()) {
			return attemptOnce();
		}
		Turnstiles.Turnstile turn = awaitTurn();
		try {
			turn.signal().expect(this.holderPrefix);
			return waitFor(turn);
		}
		catch (InterruptedException ex) {
			giveUp();
			throw ex;
		}
		finally {
			this.engine.turnstiles().leave(this.redisKey, turn);
		}
	}

	/** Waits, within the caller's wait, until no other thread of this engine waits in Redis for the lock. */
	private Turnstiles.Turnstile awaitTurn() throws InterruptedException {
		Turnstiles turnstiles = this.engine.turnstiles();
		Turnstiles.Turnstile turn = turnstiles.pass(this.redisKey, 0);
		if (turn != null) {
			return turn;
		}
		this.engine.waitingStarted();
		try {
			turn = turnstiles.pass(this.redisKey, this.deadlineNanos - System.nanoTime());
		}
		finally {
			this.engine.waitingEnded();
		}
		if (turn == null) {
			// Threads of this engine ahead in line had the first claim to the lock all along: it was not to be ours.
			throw timedOut(null);
		}
		return turn;
	}

	private RedisLockHandle attemptOnce() throws InterruptedException {
		if (this.shared == null && this.engine.heldHere(this.redisKey)) {
			// Held in this very engine, within its lease: the answer is known without a round trip.
			throw timedOut(null);
		}
		long sentAt = System.nanoTime();
		try {
			try {
				if (this.shared != null) {
					List<Long> reply = attempt();
					if (reply.get(0) != 0L) {
						return acquired(reply, sentAt);
					}
				}
				else {
					long token = tryExclusive();
					if (token != 0) {
						return (token > 0) ? this.engine.newHandle(this.request, this.redisKey, this.queueKey,
								this.holderPrefix, token, sentAt, null) : handedOver(-token);
					}
				}
			}
			catch (InterruptedException ex) {
				// The try may still take the lock: once it has answered (so the release cannot overtake it on another
				// connection), let go of whatever it took.
				awaitInFlight();
				releaseQuietly();
				throw ex;
			}
			throw timedOut(null);
		}
		catch (RedisException ex) {
			throwIfRefused(ex);
			releaseQuietly();
			throw timedOut(ex);
		}
	}

	/** A refusal (NOPERM, WRONGTYPE, OOM, ...) ends the call at once: waiting will not cure it. */
	private void throwIfRefused(RedisException ex) {
		RuntimeException refused = this.engine.refused(ex, "acquire", this.request.name(), this.request.key());
		if (refused != null) {
			giveUp();
			throw refused;
		}
	}

	private RedisLockHandle waitFor(Turnstiles.Turnstile turn) throws InterruptedException {
		ReleaseSignals.Signal signal = turn.signal();
		boolean waiting = false;
		try {
			while (true) {
				long seen = signal.releases();
				long sentAt = System.nanoTime();
				List<Long> reply;
				RedisException unreachable = null;
				try {
					this.sent = true;
					reply = attempt();
				}
				catch (RedisException ex) {
					// A refused script did not run: it queued nothing.
					this.sent = this.queued || RedisFailures.refusal(LockScripts.unwrap(ex)) == null;
					throwIfRefused(ex);
					reply = null;
					unreachable = ex;
				}
				if (reply != null && reply.get(0) != 0L) {
					if (this.unheard && reply.get(0) == 2L) {
						// Handed over while this thread waited, and not heard: the subscription may no longer reach
						// the lock's node (its slot moved); the next thread in line subscribes again.
						turn.dropSubscription();
					}
					return acquired(reply, sentAt);
				}
				if (reply != null) {
					this.queued = true;
					this.clockSentAtNanos = sentAt;
					this.clockServerMicros = reply.get(2);
				}
				long remaining = this.deadlineNanos - System.nanoTime();
				if (remaining <= 0) {
					return lastChance(unreachable);
				}
				if (!waiting) {
					this.engine.waitingStarted();
					waiting = true;
				}
				if (reply == null) {
					TimeUnit.NANOSECONDS.sleep(Math.min(remaining, UNREACHABLE_BACKOFF_NANOS));
					continue;
				}
				long pause = listen(turn, Math.min(remaining, this.engine.pollNanos(reply.get(1))));
				if (pause == 0) {
					continue;
				}
				long token = awaitAnnouncement(turn, signal, seen, pause);
				if (token != 0) {
					return handedOver(token);
				}
				this.unheard = signal.releases() == seen;
			}
		}
		finally {
			if (waiting) {
				this.engine.waitingEnded();
			}
		}
	}

	/**
	 * Makes sure this engine hears the lock's announcements before the caller waits for one: on Redis Cluster, a
	 * subscription to the lock's shard channels, kept by the turnstile for the threads in line after this one.
	 * Nothing to do with the engine-wide channels of a single Redis or Sentinel.
	 * @param pauseNanos the longest the caller would wait before its next attempt
	 * @return how long the caller may wait for an announcement before its next attempt: the pause, or at most
	 * {@link #UNSUBSCRIBED_POLL_NANOS} while the subscription is not confirmed; 0 when it must try again first (the
	 * subscription was confirmed only now, after the last attempt, so an announcement sent in between was not
	 * heard; or it is still on its way)
	 */
	private long listen(Turnstiles.Turnstile turn, long pauseNanos) throws InterruptedException {
		ReleaseAnnouncements.Subscription subscription = turn.subscription();
		boolean made = false;
		if (subscription == null) {
			subscription = this.engine.announcements().subscribe(this.redisKey);
			if (subscription == null) {
				return pauseNanos;
			}
			turn.subscribe(subscription);
			made = true;
		}
		CompletableFuture<Void> ready = subscription.ready();
		if (!made && ready.isDone()) {
			// Failed (refused or unreachable): the turnstile keeps it for a while, so that the threads in line do
			// not retry it on every attempt; meanwhile they poll, as after a lost message.
			return ready.isCompletedExceptionally() ? Math.min(pauseNanos, UNSUBSCRIBED_POLL_NANOS) : pauseNanos;
		}
		try {
			// Confirmed within a millisecond or so, unless on its way to a node that no longer serves the lock's slot,
			// which may take long to fail: no longer than a short poll.
			ready.get(Math.min(pauseNanos, UNSUBSCRIBED_POLL_NANOS), TimeUnit.NANOSECONDS);
			this.unheard = false;
		}
		catch (TimeoutException ex) {
			// Not confirmed yet: an announcement in the meantime would go unheard, so look at the lock again.
			this.unheard = true;
		}
		catch (ExecutionException ex) {
			return Math.min(pauseNanos, UNSUBSCRIBED_POLL_NANOS);
		}
		return 0;
	}

	/**
	 * Waits for an announcement, at most the pause. While it waits on a subscription of its own (Redis Cluster), it
	 * looks every {@link #SUBSCRIPTION_CHECK_NANOS} whether the subscription still stands, and stops waiting when it
	 * does not (a slot that moved takes it away without a word), so that the caller looks at the lock again and
	 * subscribes where the slot is now.
	 * @return the token of a hand-over announced to this caller, or 0
	 */
	private long awaitAnnouncement(Turnstiles.Turnstile turn, ReleaseSignals.Signal signal, long seen,
			long pauseNanos) throws InterruptedException {
		if (!turn.hasSubscription()) {
			return signal.await(seen, pauseNanos);
		}
		long deadline = System.nanoTime() + pauseNanos;
		while (true) {
			long remaining = deadline - System.nanoTime();
			long token = signal.await(seen, Math.min(remaining, SUBSCRIPTION_CHECK_NANOS));
			if (token != 0 || signal.releases() != seen || remaining <= SUBSCRIPTION_CHECK_NANOS
					|| turn.subscriptionDropped()) {
				return token;
			}
		}
	}

	/**
	 * One attempt, waited for. Sent without waiting and then waited for, so that an interrupt ends the wait at once
	 * while the attempt stays known until its answer comes ({@link #inFlight}).
	 * @throws RedisException when Redis refused or did not answer
	 */
	private List<Long> attempt() throws InterruptedException {
		long queueTtl = TimeUnit.NANOSECONDS.toMillis(Math.max(0, this.deadlineNanos - System.nanoTime()))
				+ QUEUE_TTL_MARGIN_MILLIS;
		Object[] args = (this.shared != null)
				? new Object[] { this.holderPrefix, this.leaseMillis, this.queueMember, queueTtl,
						this.queued ? "1" : "0", this.shared.mode(), this.shared.permits(),
						this.engine.releaseChannel(this.redisKey) }
				: new Object[] { this.holderPrefix, this.leaseMillis, this.queueMember, queueTtl,
						this.queued ? "1" : "0" };
		LockScripts.Script lua = (this.shared != null) ? LockScripts.SHARED_ACQUIRE : LockScripts.ACQUIRE;
		List<Object> keys = this.acquireKeys;
		LockScripts scripts = this.engine.scripts();
		try {
			List<Long> reply;
			try {
				reply = awaitAnswer(scripts.sendBySha(lua, ReturnType.LIST, keys, args));
			}
			catch (RedisNoScriptException ex) {
				// Forgotten (a restart, SCRIPT FLUSH): sent again by its text, which loads it.
				reply = awaitAnswer(scripts.sendByText(lua, ReturnType.LIST, keys, args));
			}
			scripts.answered();
			return reply;
		}
		catch (RedisException ex) {
			scripts.failed(ex);
			throw ex;
		}
	}

	/**
	 * A single try of an exclusive lock ({@code try.lua}).
	 * @return the token when taken now, minus the token when it already was this holder's, 0 when held by another
	 */
	private long tryExclusive() throws InterruptedException {
		Object[] args = { this.holderPrefix, this.leaseMillis };
		LockScripts scripts = this.engine.scripts();
		try {
			Long token;
			try {
				token = awaitAnswer(scripts.sendBySha(LockScripts.TRY, ReturnType.LONG, this.acquireKeys, args));
			}
			catch (RedisNoScriptException ex) {
				token = awaitAnswer(scripts.sendByText(LockScripts.TRY, ReturnType.LONG, this.acquireKeys, args));
			}
			scripts.answered();
			return token;
		}
		catch (RedisException ex) {
			scripts.failed(ex);
			throw ex;
		}
	}

	/**
	 * Waits for an attempt's answer on this thread: nothing is chained to the reply, so the I/O thread that completes
	 * it only wakes this one.
	 */
	private <R> R awaitAnswer(CompletableFuture<R> reply) throws InterruptedException {
		this.inFlight = reply;
		try {
			return reply.get();
		}
		catch (ExecutionException ex) {
			throw LockScripts.asRedisException(Objects.requireNonNullElse(ex.getCause(), ex));
		}
	}

	/** The wait is over: leave the queue, unless the lock was handed over in the meantime. */
	private RedisLockHandle lastChance(@Nullable RedisException unreachable) {
		if (unreachable != null) {
			// Another blocking call could double the wait past its bound: leave the queue, and pass on a lock the
			// last attempt may have taken unheard, without waiting for the answers.
			if (this.shared != null) {
				this.engine.scripts()
					.runAsync(LockScripts.SHARED_WITHDRAW, ReturnType.LONG, this.shared.keys(), this.holderPrefix,
							this.queueMember, this.shared.mode(), this.engine.releaseChannel(this.redisKey));
			}
			else {
				this.engine.scripts()
					.runAsync(LockScripts.WITHDRAW, ReturnType.LONG, List.of(this.redisKey, this.queueKey),
							this.holderPrefix, this.queueMember);
			}
			releaseQuietly();
			throw timedOut(unreachable);
		}
		if (this.queued) {
			try {
				Long token = withdraw();
				if (token != 0) {
					return handedOver(token);
				}
			}
			catch (RedisException ex) {
				// A hand-over may have raced with the withdrawal unheard: pass it on.
				releaseQuietly();
				throw timedOut(ex);
			}
		}
		throw timedOut(null);
	}

	/**
	 * Stops waiting for good (interrupted, or failed): a hand-over that raced with us is passed on at once. An attempt
	 * still on its way is waited for first, up to its command timeout: the withdrawal goes out on another connection,
	 * and Redis could run it before the attempt (after a pause, say), which would then queue, or take the lock for, a
	 * caller who is gone.
	 */
	private void giveUp() {
		if (!this.sent) {
			return;
		}
		boolean interrupted = awaitInFlight();
		try {
			if (withdraw() != 0) {
				releaseQuietly();
			}
		}
		catch (RedisException ex) {
			// Unreachable: the queue entry expires with the caller's wait, and a hand-over with its lease.
		}
		finally {
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

	/** @return whether the caller was interrupted (again) meanwhile, to be told once the withdrawal is sent */
	private boolean awaitInFlight() {
		CompletableFuture<?> last = this.inFlight;
		if (last == null || last.isDone()) {
			return false;
		}
		try {
			last.get(this.engine.scripts().answerBound().toNanos(), TimeUnit.NANOSECONDS);
		}
		catch (InterruptedException ex) {
			return true;
		}
		catch (ExecutionException | TimeoutException ex) {
			// Answered with a failure, or not within its timeout: the withdrawal is all there is left to do.
		}
		return false;
	}

	private Long withdraw() {
		if (this.shared != null) {
			return this.engine.scripts()
				.run(LockScripts.SHARED_WITHDRAW, ReturnType.LONG, this.shared.keys(), this.holderPrefix,
						this.queueMember, this.shared.mode(), this.engine.releaseChannel(this.redisKey));
		}
		return this.engine.scripts()
			.run(LockScripts.WITHDRAW, ReturnType.LONG, List.of(this.redisKey, this.queueKey), this.holderPrefix,
					this.queueMember);
	}

	/** Releases, without waiting for the answer, a lock this caller may have been given without hearing of it. */
	private void releaseQuietly() {
		this.engine.releaseQuietly(this.redisKey, this.queueKey, this.holderPrefix, this.shared);
	}

	private RedisLockHandle acquired(List<Long> reply, long sentAt) {
		return (reply.get(0) == 1L) ? this.engine.newHandle(this.request, this.redisKey, this.queueKey,
				this.holderPrefix, reply.get(1), sentAt, this.shared) : handedOver(reply.get(1));
	}

	/**
	 * A lock handed to this caller by a release: its lease started when the releasing script ran, which the token
	 * dates on the server's clock. Mapped onto the local clock through the last failed attempt, whose send time is
	 * no later than the server time it reported, the start is estimated early, so the lease deadline is not
	 * overstated. One exception: a token the floor raised above the server's clock (token.lua: the clock stepped
	 * back, or a failover to a replica whose clock is behind) dates the grant later than it was, by up to that gap,
	 * and never later than now; the deadline is then overstated by at most the time between the grant and this
	 * caller learning of it (an announcement's delay or, when it was lost, up to one poll).
	 */
	private RedisLockHandle handedOver(long token) {
		long now = System.nanoTime();
		long mapped = this.clockSentAtNanos + (token - this.clockServerMicros) * 1000;
		long grantedAt = (this.clockServerMicros == 0) ? this.startNanos
				: Math.max(this.clockSentAtNanos, Math.min(mapped, now));
		return this.engine.newHandle(this.request, this.redisKey, this.queueKey, this.holderPrefix, token, grantedAt,
				this.shared);
	}

	private LockAcquisitionException timedOut(@Nullable RedisException unreachable) {
		return new LockAcquisitionException(this.request.name(), this.request.key(),
				Duration.ofNanos(System.nanoTime() - this.startNanos), unreachable);
	}

}
