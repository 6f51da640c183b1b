package io.github.distlock.etcd;

import java.security.SecureRandom;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import io.etcd.jetcd.ByteSequence;
import org.jspecify.annotations.Nullable;
import io.github.distlock.LockAcquisitionException;
import io.github.distlock.LockStoreException;
import io.github.distlock.engine.DisplayedKey;
import io.github.distlock.engine.LockRequest;

/**
 * Takes a lock for one caller: joins the lock's queue with a key of its own, waits for its turn, and leaves the
 * queue when it gives up.
 * <p>
 * A wait time of zero looks once: the join tells whether the key is first, and a key that is not is deleted at once.
 * A waiter watches the key just ahead of it and, when that key is deleted, looks again: whether its own key is still
 * there (it goes with the lease, or may be deleted from outside) and which key is now ahead (a waiter ahead may have
 * given up). A waiter whose key is gone joins again, at the end of the queue, within the time it has left. A waiter
 * that gives up deletes its key before it returns; one that is interrupted leaves that to the background.
 * <p>
 * etcd that cannot be reached is tried again within the wait time, since another member may answer the next call;
 * a call with no answer within an election timeout is sent again ({@link CallAttempts}), since the leader it went to
 * may have died and a new one may answer; etcd that refuses (credentials, permission) fails the call at once, as waiting will not cure it. Waiting is on
 * {@link CompletableFuture}s, so a virtual thread waiting for a lock does not pin its carrier.
 */
final class Acquirer {

	/** Pause before trying again after etcd could not be reached, or a watch ended without an answer. */
	private static final long RETRY_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

	/** How often an acquisition joins again because its lease was found gone, beyond its wait time. */
	private static final int LEASE_RETRIES = 2;

	/**
	 * Joins one acquisition sends at most before it pauses and joins afresh: each marks the earlier ones abandoned in
	 * its transaction (two operations each), which etcd allows 128 operations by default.
	 */
	private static final int MAX_JOIN_ATTEMPTS = 32;

	/** The join that was answered: its holder, where its key stands, and when it was sent. */
	private record Joined(String holder, LockQueue.Place place, long sentAtNanos) {
	}

	/** Where one acquisition's key is and what it got. */
	record Granted(ByteSequence ownKey, String holder, InstanceLease lease, long token, long grantedAtNanos) {
	}

	private final LockQueue queue;

	private final LockKeys keys;

	private final LeaseKeeper leases;

	private final KeyCleaner cleaner;

	private final StandingRefusal refusal;

	private final Duration timeout;

	private final CallAttempts attempts;

	private final String instanceId;

	private final AtomicLong acquisitions = new AtomicLong();

	private final AtomicInteger waiting = new AtomicInteger();

	/**
	 * @param timeout how long one call to etcd may take beyond the caller's wait time
	 * @param attempts how a call is repeated when its attempt gets no answer in time (a leader that died)
	 */
	Acquirer(LockQueue queue, LockKeys keys, LeaseKeeper leases, KeyCleaner cleaner, StandingRefusal refusal,
			Duration timeout, CallAttempts attempts) {
		this.queue = queue;
		this.keys = keys;
		this.leases = leases;
		this.cleaner = cleaner;
		this.refusal = refusal;
		this.timeout = timeout;
		this.attempts = attempts;
		byte[] id = new byte[8];
		new SecureRandom().nextBytes(id);
		this.instanceId = HexFormat.of().formatHex(id);
	}

	/** Threads waiting for their turn now. */
	int waitingCount() {
		return this.waiting.get();
	}

	/**
	 * @throws LockAcquisitionException if the lock stayed held for the whole wait time, or etcd could not be reached
	 * within it plus one call's timeout
	 * @throws LockStoreException if etcd refused
	 */
	Granted acquire(LockRequest request) throws InterruptedException {
		Attempt attempt = new Attempt(request);
		int leaseRetries = 0;
		while (true) {
			InstanceLease lease = attempt.lease();
			List<String> sent = new CopyOnWriteArrayList<>();
			CompletableFuture<Joined> joining = join(attempt, lease, sent);
			Joined joined;
			try {
				joined = joining.get();
				this.refusal.succeeded();
			}
			catch (InterruptedException ex) {
				// Attempts may still be on their way: once the last one is settled, none of them leaves a key.
				joining.whenComplete((done, failure) -> abandon(attempt.queue, sent, lease));
				throw ex;
			}
			catch (ExecutionException ex) {
				Throwable cause = unwrap(ex);
				EtcdFailure failure = EtcdFailure.of(cause);
				if (failure.kind() == EtcdFailure.Kind.LEASE_GONE && leaseRetries++ < LEASE_RETRIES) {
					// Refused outright, so no key was created: the next join takes a new lease.
					this.leases.gone(lease);
					continue;
				}
				if (failure.isRefusal()) {
					// The refused attempt created nothing; an earlier one given up may have.
					abandon(attempt.queue, sent.subList(0, Math.max(0, sent.size() - 1)), lease);
					throw attempt.refused(failure, cause);
				}
				// Each join may have created its key, or may yet.
				abandon(attempt.queue, sent, lease);
				attempt.pauseOrFail(failure, cause);
				continue;
			}
			Granted granted = awaitTurn(attempt, joined.holder(), lease, joined.place(), joined.sentAtNanos());
			if (granted != null) {
				return granted;
			}
			if (attempt.remainingNanos() <= 0) {
				throw attempt.busy();
			}
		}
	}

	/**
	 * Joins the queue, in attempts (see {@link CallAttempts}). A join is not repeated as it was: should the attempt
	 * given up create its key after the acquisition is over, that key would hold the lock for as long as the
	 * instance lives. So each attempt is a new holder, and its transaction marks every earlier holder of this
	 * acquisition abandoned and deletes its key: whichever reaches etcd first, no earlier key survives the answered
	 * attempt, and an earlier attempt that comes after it creates nothing.
	 * @param sent where each holder sent is added, in order, for the caller to abandon should the join fail
	 */
	private CompletableFuture<Joined> join(Attempt attempt, InstanceLease lease, List<String> sent) {
		return this.attempts.call((n) -> {
			String holder = newHolder();
			List<String> earlier = List.copyOf(sent);
			sent.add(holder);
			long sentAt = System.nanoTime();
			return this.queue.join(attempt.queue, holder, lease.id(), earlier)
				.thenApply((place) -> new Joined(holder, place, sentAt));
		}, attempt.callBound(), MAX_JOIN_ATTEMPTS);
	}

	/** Makes sure that none of these joins leaves a key behind, in the background. */
	private void abandon(ByteSequence queue, List<String> holders, InstanceLease lease) {
		for (String holder : holders) {
			this.cleaner.abandon(queue, holder, lease);
		}
	}

	/**
	 * Waits until the key is first in its queue.
	 * @return the grant; null when the key is gone (with its lease, or deleted from outside) and the caller must join
	 * again
	 */
	private @Nullable Granted awaitTurn(Attempt attempt, String holder, InstanceLease lease, LockQueue.Place place,
			long sentAt) throws InterruptedException {
		ByteSequence own = LockKeys.member(attempt.queue, holder);
		long token = place.token();
		if (place.ahead() == null) {
			return new Granted(own, holder, lease, token, sentAt);
		}
		ByteSequence ahead = place.ahead();
		long revision = place.revision();
		while (true) {
			long remaining = attempt.remainingNanos();
			if (remaining <= 0) {
				leaveNow(own, token, lease);
				throw attempt.busy();
			}
			this.waiting.incrementAndGet();
			try {
				awaitDeletion(ahead, revision, lease, remaining);
			}
			catch (InterruptedException ex) {
				this.cleaner.leave(own, token, lease);
				throw ex;
			}
			finally {
				this.waiting.decrementAndGet();
			}
			if (lease.isEnded()) {
				return null;
			}
			long lookedAt = System.nanoTime();
			LockQueue.Look look;
			try {
				// A read: repeated as it is.
				look = this.attempts.call((n) -> this.queue.look(attempt.queue, holder, token), attempt.callBound())
					.get();
			}
			catch (InterruptedException ex) {
				this.cleaner.leave(own, token, lease);
				throw ex;
			}
			catch (ExecutionException ex) {
				Throwable cause = unwrap(ex);
				EtcdFailure failure = EtcdFailure.of(cause);
				if (failure.isRefusal() || attempt.remainingNanos() <= 0) {
					this.cleaner.leave(own, token, lease);
					throw failure.isRefusal() ? attempt.refused(failure, cause) : attempt.unavailable(failure, cause);
				}
				try {
					pause(attempt);
				}
				catch (InterruptedException interrupted) {
					this.cleaner.leave(own, token, lease);
					throw interrupted;
				}
				continue;
			}
			if (!look.present()) {
				return null;
			}
			if (look.ahead() == null) {
				return new Granted(own, holder, lease, token, lookedAt);
			}
			ahead = look.ahead();
			revision = look.revision();
		}
	}

	/**
	 * Returns when the key ahead is deleted, the lease ends, or the time runs out; after a short pause when the watch
	 * ended without an answer. The caller looks again in every case.
	 */
	private void awaitDeletion(ByteSequence ahead, long revision, InstanceLease lease, long remaining)
			throws InterruptedException {
		try (KeyDeletionWatch watch = this.queue.watchDeletion(ahead, revision + 1)) {
			CompletableFuture.anyOf(watch.deleted(), lease.ended()).get(remaining, TimeUnit.NANOSECONDS);
		}
		catch (TimeoutException ex) {
			// The caller finds the time is up.
		}
		catch (ExecutionException | RuntimeException ex) {
			// The watch ended without seeing a deletion (or could not be opened): look again soon.
			Thread.sleep(TimeUnit.NANOSECONDS.toMillis(Math.min(RETRY_PAUSE_NANOS, remaining)));
		}
	}

	/** A waiter that gives up deletes its key before it returns, so that no one waits behind it any more. */
	private void leaveNow(ByteSequence own, long token, InstanceLease lease) {
		if (lease.isEnded()) {
			return;
		}
		try {
			// Deletes only the key of this token: repeated as it is.
			this.attempts.call((n) -> this.queue.leave(own, token), this.timeout.toNanos()).get();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			this.cleaner.leave(own, token, lease);
		}
		catch (ExecutionException ex) {
			this.cleaner.leave(own, token, lease);
		}
	}

	private void pause(Attempt attempt) throws InterruptedException {
		long pause = Math.min(RETRY_PAUSE_NANOS, Math.max(0, attempt.remainingNanos()));
		Thread.sleep(TimeUnit.NANOSECONDS.toMillis(pause));
	}

	/** An acquisition's identity in etcd: never per host or thread, never reused. */
	private String newHolder() {
		return this.instanceId + "-" + this.acquisitions.incrementAndGet();
	}

	private static Throwable unwrap(Throwable failure) {
		return CallAttempts.unwrap(failure);
	}

	/** One call to acquire: its lock, its clock, and how it fails. */
	private final class Attempt {

		final LockRequest request;

		final ByteSequence queue;

		final long start = System.nanoTime();

		final long deadline;

		Attempt(LockRequest request) {
			this.request = request;
			this.queue = Acquirer.this.keys.queue(request.name(), request.key());
			this.deadline = this.start + request.waitTime().toNanos();
		}

		long remainingNanos() {
			return this.deadline - System.nanoTime();
		}

		/** How long one call may take: what is left of the wait, plus one call's timeout. */
		long callBound() {
			return Math.max(0, remainingNanos()) + Acquirer.this.timeout.toNanos();
		}

		/** The live lease, granted now if need be; tried again within the wait time while etcd cannot be reached. */
		InstanceLease lease() throws InterruptedException {
			while (true) {
				try {
					return Acquirer.this.leases.current(callBound());
				}
				catch (ExecutionException | TimeoutException ex) {
					Throwable cause = unwrap(ex);
					EtcdFailure failure = EtcdFailure.of(cause);
					if (failure.isRefusal()) {
						throw refused(failure, cause);
					}
					pauseOrFail(failure, cause);
				}
			}
		}

		/** Pauses before the next try, or fails when the wait time does not leave room for one. */
		void pauseOrFail(EtcdFailure failure, Throwable cause) throws InterruptedException {
			if (remainingNanos() - RETRY_PAUSE_NANOS <= 0) {
				throw unavailable(failure, cause);
			}
			pause(this);
		}

		LockAcquisitionException busy() {
			return new LockAcquisitionException(this.request.name(), this.request.key(), waited(), null);
		}

		LockAcquisitionException unavailable(EtcdFailure failure, Throwable cause) {
			return new LockAcquisitionException(this.request.name(), this.request.key(), waited(),
					new EtcdCallException(describe(failure), cause));
		}

		LockStoreException refused(EtcdFailure failure, Throwable cause) {
			String sentence = describe(failure);
			Acquirer.this.refusal.refused(sentence);
			return new LockStoreException(this.request.name(), this.request.key(), failure.code(),
					"Could not acquire lock '" + this.request.name() + "' for key '"
							+ DisplayedKey.of(this.request.key()) + "': " + sentence,
					new EtcdCallException(sentence, cause));
		}

		private String describe(EtcdFailure failure) {
			return failure.describe(Acquirer.this.keys.rootPrefix(), Acquirer.this.timeout);
		}

		private Duration waited() {
			return Duration.ofNanos(System.nanoTime() - this.start);
		}

	}

}
