package io.github.distlock.etcd;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import io.etcd.jetcd.ByteSequence;

/**
 * Deletes, off the caller's thread, keys the engine no longer wants but could not delete at once: a release or a
 * waiter's departure that got no answer, a lock whose lease ran out, a join that got no answer. Every key is
 * attached to the instance's lease, which the engine keeps alive: a key left behind would stay, and hold its lock or
 * its place in the queue, for as long as the instance runs. So each deletion is tried again until etcd confirms it,
 * the lease ends (which deletes the key anyway), or the engine closes (which revokes the lease).
 */
final class KeyCleaner {

	/** Pause between attempts while etcd cannot be reached. */
	private static final Duration RETRY_PAUSE = Duration.ofMillis(500);

	private final LockQueue queue;

	private final ScheduledExecutorService events;

	private final Duration timeout;

	private final CallAttempts attempts;

	/**
	 * @param timeout how long one deletion may take before it is tried again after a pause
	 * @param attempts how a deletion is sent again when an attempt gets no answer in time (a leader that died)
	 */
	KeyCleaner(LockQueue queue, ScheduledExecutorService events, Duration timeout, CallAttempts attempts) {
		this.queue = queue;
		this.events = events;
		this.timeout = timeout;
		this.attempts = attempts;
	}

	/** Deletes the key if it is still the one created with this token. */
	void leave(ByteSequence own, long token, InstanceLease lease) {
		attempt(() -> this.queue.leave(own, token), lease);
	}

	/** Makes sure a join that got no answer leaves no key behind (see {@link LockQueue#abandon}). */
	void abandon(ByteSequence queue, String holder, InstanceLease lease) {
		attempt(() -> this.queue.abandon(queue, holder, lease.id()), lease);
	}

	private void attempt(Supplier<CompletableFuture<?>> deletion, InstanceLease lease) {
		if (lease.isEnded()) {
			return;
		}
		// Both deletions may take effect any number of times, in any order: repeated as they are.
		CompletableFuture<?> call = this.attempts.call((n) -> deletion.get(), this.timeout.toNanos());
		call.whenComplete((done, failure) -> {
			if (failure == null || lease.isEnded()
					|| EtcdFailure.of(failure).kind() == EtcdFailure.Kind.LEASE_GONE
					|| EtcdFailure.of(failure).kind() == EtcdFailure.Kind.CLOSED) {
				// A closed client: the engine is closing, and revokes the lease.
				return;
			}
			try {
				this.events.schedule(() -> attempt(deletion, lease), RETRY_PAUSE.toMillis(), TimeUnit.MILLISECONDS);
			}
			catch (RejectedExecutionException ex) {
				// The engine is closed, and has revoked the lease.
			}
		});
	}

}
