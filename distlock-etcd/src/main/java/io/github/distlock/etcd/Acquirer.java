package io.github.distlock.etcd;

import java.security.SecureRandom;
import java.time.Duration;
import java.util.HexFormat;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import io.etcd.jetcd.ByteSequence;
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
 * etcd that refuses (credentials, permission) fails the call at once, as waiting will not cure it. Waiting is on
 * {@link CompletableFuture}s, so a virtual thread waiting for a lock does not pin its carrier.
 */
final class Acquirer {

	/** Pause before trying again after etcd could not be reached, or a watch ended without an answer. */
	private static final long RETRY_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

	/** How often an acquisition joins again because its lease was found gone, beyond its wait time. */
	private static final int LEASE_RETRIES = 2;

	/** Where one acquisition's key is and what it got. */
	record Granted(ByteSequence ownKey, String holder, InstanceLease lease, long token, long grantedAtNanos) {
	}

	private final LockQueue queue;

	private final LockKeys keys;

	private final LeaseKeeper leases;

	private final KeyCleaner cleaner;

	private final StandingRefusal refusal;

	private final Duration timeout;

	private final String instanceId;

	private final AtomicLong acquisitions = new AtomicLong();

	private final AtomicInteger waiting = new AtomicInteger();

	/**
	 * @param timeout how long one call to etcd may take beyond the caller's wait time
	 */
	Acquirer(LockQueue queue, LockKeys keys, LeaseKeeper leases, KeyCleaner cleaner, StandingRefusal refusal,
			Duration timeout) {
		this.queue = queue;
		this.keys = keys;
		this.leases = leases;
		this.cleaner = cleaner;
		this.refusal = refusal;
		this.timeout = timeout;
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
			String holder = newHolder();
			long sentAt = System.nanoTime();
			LockQueue.Place place;
			try {
				place = this.queue.join(attempt.queue, holder, lease.id()).get(attempt.callBound(),
						TimeUnit.NANOSECONDS);
				this.refusal.succeeded();
			}
			catch (InterruptedException ex) {
				this.cleaner.abandon(attempt.queue, holder, lease);
				throw ex;
			}
			catch (ExecutionException | TimeoutException ex) {
				Throwable cause = unwrap(ex);
				EtcdFailure failure = EtcdFailure.of(cause);
				if (failure.kind() == EtcdFailure.Kind.LEASE_GONE && leaseRetries++ < LEASE_RETRIES) {
					// Refused outright, so no key was created: the next join takes a new lease.
					this.leases.gone(lease);
					continue;
				}
				if (failure.isRefusal()) {
					throw attempt.refused(failure, cause);
				}
				// The join may have created the key, or may yet.
				this.cleaner.abandon(attempt.queue, holder, lease);
				attempt.pauseOrFail(failure, cause);
				continue;
			}
			Granted granted = awaitTurn(attempt, holder, lease, place, sentAt);
			if (granted != null) {
				return granted;
			}
			if (attempt.remainingNanos() <= 0) {
				throw attempt.busy();
			}
		}
	}

	/**
	 * Waits until the key is first in its queue.
	 * @return the grant; null when the key is gone (with its lease, or deleted from outside) and the caller must join
	 * again
	 */
	private Granted awaitTurn(Attempt attempt, String holder, InstanceLease lease, LockQueue.Place place,
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
				look = this.queue.look(attempt.queue, holder, token).get(attempt.callBound(), TimeUnit.NANOSECONDS);
			}
			catch (InterruptedException ex) {
				this.cleaner.leave(own, token, lease);
				throw ex;
			}
			catch (ExecutionException | TimeoutException ex) {
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
			this.queue.leave(own, token).get(this.timeout.toNanos(), TimeUnit.NANOSECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			this.cleaner.leave(own, token, lease);
		}
		catch (ExecutionException | TimeoutException ex) {
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
		Throwable cause = failure;
		while ((cause instanceof ExecutionException || cause instanceof CompletionException)
				&& cause.getCause() != null) {
			cause = cause.getCause();
		}
		return cause;
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
