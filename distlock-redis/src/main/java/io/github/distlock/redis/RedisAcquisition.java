package io.github.distlock.redis;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.jspecify.annotations.Nullable;
import org.redisson.client.RedisException;

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

	private final RedisLockEngine engine;

	private final LockRequest request;

	private final String redisKey;

	private final String queueKey;

	private final String holderPrefix;

	/** Where a shared lock (a side of a read/write lock, or a permit) lives; null for an exclusive lock. */
	private final @Nullable SharedLock shared;

	private final AcquireScripts scripts;

	private final long startNanos;

	private final long deadlineNanos;

	/** The lease a hand-over would give this caller, which bounds its pauses ({@link RedisLockEngine#pollNanos}). */
	private final long leaseNanos;

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
		this.scripts = new AcquireScripts(engine, redisKey, queueKey, holderPrefix, shared,
				request.initialLease().toMillis(), request.waitTime().toMillis());
		this.startNanos = System.nanoTime();
		this.deadlineNanos = this.startNanos + request.waitTime().toNanos();
		this.leaseNanos = request.initialLease().toNanos();
		this.clockSentAtNanos = this.startNanos;
	}

	RedisLockHandle run() throws InterruptedException {
		if (this.scripts.singleTry()) {
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
					List<Long> reply = this.scripts.attempt(this.deadlineNanos, false);
					if (reply.get(0) != 0L) {
						return acquired(reply, sentAt);
					}
				}
				else {
					long token = this.scripts.tryExclusive();
					if (token != 0) {
						return (token > 0) ? this.engine.newHandle(this.request, this.redisKey, this.queueKey,
								this.holderPrefix, token, sentAt, null) : handedOver(-token);
					}
				}
			}
			catch (InterruptedException ex) {
				// The try may still take the lock: once it has answered (so the release cannot overtake it on another
				// connection), let go of whatever it took.
				this.scripts.awaitInFlight();
				this.scripts.releaseQuietly();
				throw ex;
			}
			throw timedOut(null);
		}
		catch (RedisException ex) {
			throwIfRefused(ex);
			this.scripts.releaseQuietly();
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
					reply = this.scripts.attempt(this.deadlineNanos, this.queued);
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
				long pause = listen(turn, Math.min(remaining, this.engine.pollNanos(reply.get(1), this.leaseNanos)));
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

	/** The wait is over: leave the queue, unless the lock was handed over in the meantime. */
	private RedisLockHandle lastChance(@Nullable RedisException unreachable) {
		if (unreachable != null) {
			// Another blocking call could double the wait past its bound: leave the queue, and pass on a lock the
			// last attempt may have taken unheard, without waiting for the answers.
			this.scripts.withdrawWithoutWaiting();
			this.scripts.releaseQuietly();
			throw timedOut(unreachable);
		}
		if (this.queued) {
			try {
				long token = this.scripts.withdraw();
				if (token != 0) {
					return handedOver(token);
				}
			}
			catch (RedisException ex) {
				// A hand-over may have raced with the withdrawal unheard: pass it on.
				this.scripts.releaseQuietly();
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
		boolean interrupted = this.scripts.awaitInFlight();
		try {
			if (this.scripts.withdraw() != 0) {
				this.scripts.releaseQuietly();
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
