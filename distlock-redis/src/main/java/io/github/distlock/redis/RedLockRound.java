package io.github.distlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.jspecify.annotations.Nullable;

import io.github.distlock.LockAcquisitionException;
import io.github.distlock.LockStoreException;
import io.github.distlock.engine.LockHandle;
import io.github.distlock.engine.LockRequest;
import io.github.distlock.engine.support.LeasedLockHandle;

/**
 * One attempt at a RedLock: a single try on every master at once, each waited for at most the node timeout. With a
 * majority granted while the lease has time left (the lease, less the time the round took, less the clock drift), the
 * largest of their tokens becomes the floor on each of them and the lock is handed out; otherwise every part granted
 * is released. A part whose answer comes after the round gave up on it is released when it comes.
 */
final class RedLockRound {

	private final RedLockEngine engine;

	private final RedLockMasters masters;

	private final LockRequest request;

	/** The request each master gets: the caller's, as a single try. */
	private final LockRequest singleTry;

	private final long driftNanos;

	/** What each master answered: a part, or why not (null for a master that did not answer in time). */
	private final @Nullable LockHandle[] granted;

	private final @Nullable Throwable[] failures;

	RedLockRound(RedLockEngine engine, RedLockMasters masters, LockRequest request, long driftNanos) {
		this.engine = engine;
		this.masters = masters;
		this.request = request;
		this.singleTry = new LockRequest(request.name(), request.key(), request.lease(), Duration.ZERO,
				request.autoRenew(), request.maxLease());
		this.driftNanos = driftNanos;
		this.granted = new LockHandle[masters.size()];
		this.failures = new Throwable[masters.size()];
	}

	/**
	 * @return the lock, or null when no majority granted it in time (see {@link #unreachable()} and
	 * {@link #refusal()} for why)
	 */
	@Nullable RedLockHandle run() throws InterruptedException {
		long start = System.nanoTime();
		List<CompletableFuture<LockHandle>> answers = this.masters.start(this.masters.size(),
				(index) -> this.masters.get(index).acquire(this.singleTry));
		try {
			CompletableFuture.allOf(answers.toArray(CompletableFuture[]::new))
				.get(this.masters.nodeTimeout().toNanos(), TimeUnit.NANOSECONDS);
		}
		catch (ExecutionException | TimeoutException ex) {
			// Some failed, or did not answer in time: read below, one by one.
		}
		catch (InterruptedException ex) {
			answers.forEach(RedLockRound::releaseWhenAnswered);
			throw ex;
		}
		int count = 0;
		long token = Long.MIN_VALUE;
		for (int i = 0; i < answers.size(); i++) {
			CompletableFuture<LockHandle> answer = answers.get(i);
			if (!answer.isDone()) {
				releaseWhenAnswered(answer);
				continue;
			}
			try {
				this.granted[i] = answer.join();
				count++;
				token = Math.max(token, this.granted[i].token());
			}
			catch (RuntimeException ex) {
				this.failures[i] = unwrap(ex);
			}
		}
		if (count < this.masters.majority()) {
			releaseGranted();
			return null;
		}
		long validUntil = start + this.request.initialLease().toNanos() - this.driftNanos;
		if (raiseFloors(token) && System.nanoTime() - validUntil < 0) {
			// Each master's engine hands out leased handles.
			List<LeasedLockHandle> parts = Arrays.stream(this.granted)
				.filter(Objects::nonNull)
				.map(LeasedLockHandle.class::cast)
				.toList();
			RedLockHandle lock = this.engine.newHandle(this.request, token, start, parts);
			lock.watchParts();
			if (lock.handOut()) {
				return lock;
			}
		}
		releaseGranted();
		return null;
	}

	/**
	 * Writes the token to the floor of every master that granted a part, so that every later majority, which shares
	 * a master with this one, issues a larger token.
	 * @return whether a majority did so in time
	 */
	private boolean raiseFloors(long token) {
		List<CompletableFuture<Object>> raised = new ArrayList<>();
		for (int i = 0; i < this.granted.length; i++) {
			if (this.granted[i] != null) {
				raised.add(this.masters.get(i).raiseFloor(this.granted[i], token).toCompletableFuture());
			}
		}
		try {
			CompletableFuture.allOf(raised.toArray(CompletableFuture[]::new))
				.get(this.masters.nodeTimeout().toNanos(), TimeUnit.NANOSECONDS);
		}
		catch (ExecutionException | TimeoutException ex) {
			// Counted below.
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return false;
		}
		long done = raised.stream().filter((one) -> one.isDone() && !one.isCompletedExceptionally()).count();
		return done >= this.masters.majority();
	}

	private void releaseGranted() {
		for (LockHandle part : this.granted) {
			if (part != null) {
				this.masters.runLater(() -> releaseQuietly(part));
			}
		}
	}

	private static void releaseWhenAnswered(CompletableFuture<LockHandle> answer) {
		answer.thenAccept(RedLockRound::releaseQuietly);
	}

	private static void releaseQuietly(LockHandle part) {
		try {
			part.release();
		}
		catch (RuntimeException ex) {
			// Unreachable: the part expires with its lease.
		}
	}

	/**
	 * The refusal that leaves no majority possible (a missing permission, say, on too many masters), which waiting
	 * will not cure; null when enough masters did not refuse.
	 */
	@Nullable LockStoreException refusal() {
		LockStoreException first = null;
		int notRefused = 0;
		for (int i = 0; i < this.failures.length; i++) {
			if (this.failures[i] instanceof LockStoreException refused) {
				first = (first != null) ? first : refused;
			}
			else {
				notRefused++;
			}
		}
		if (first == null || notRefused >= this.masters.majority()) {
			return null;
		}
		return new LockStoreException(this.request.name(), this.request.key(), first.getStoreError(),
				"RedLock needs " + this.masters.majority() + " of its " + this.masters.size()
						+ " Redis masters, and only " + notRefused + " did not refuse: " + describeFailures(),
				first);
	}

	/**
	 * Why too few masters answered to make a majority, for the caller's exception; null when enough answered (the
	 * lock is held elsewhere).
	 */
	@Nullable RedLockQuorumException unreachable() {
		int answered = 0;
		for (int i = 0; i < this.failures.length; i++) {
			if (this.granted[i] != null || isContention(this.failures[i])) {
				answered++;
			}
		}
		if (answered >= this.masters.majority()) {
			return null;
		}
		return new RedLockQuorumException("only " + answered + " of " + this.masters.size()
				+ " Redis masters answered, and RedLock needs " + this.masters.majority() + ": " + describeFailures(),
				answered, this.masters.majority());
	}

	private String describeFailures() {
		List<String> described = new ArrayList<>();
		for (int i = 0; i < this.failures.length; i++) {
			if (this.granted[i] != null || isContention(this.failures[i])) {
				continue;
			}
			String why = (this.failures[i] == null)
					? "no answer within " + this.masters.nodeTimeout().toMillis() + " ms"
					: (this.failures[i] instanceof LockStoreException refused) ? refused.getMessage()
							: this.masters.get(i).describeFailure(storeFailure(this.failures[i]), this.masters.nodeTimeout());
			described.add("master #" + (i + 1) + ": " + why);
		}
		return String.join("; ", described);
	}

	private static Throwable unwrap(Throwable failure) {
		Throwable cause = failure;
		while ((cause instanceof CompletionException || cause instanceof ExecutionException) && cause.getCause() != null) {
			cause = cause.getCause();
		}
		return cause;
	}

	/** The store's own failure inside a master's "could not be reached" answer. */
	private static Throwable storeFailure(Throwable failure) {
		return (failure instanceof LockAcquisitionException unavailable && unavailable.getCause() != null)
				? unavailable.getCause() : failure;
	}

	/** A single try that found the lock held: the master answered. */
	private static boolean isContention(Throwable failure) {
		return failure instanceof LockAcquisitionException refused && !refused.isStoreUnavailable();
	}

}
