package io.github.distlock.etcd;

import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import io.etcd.jetcd.Lease;
import io.etcd.jetcd.lease.LeaseGrantResponse;
import io.etcd.jetcd.lease.LeaseKeepAliveResponse;
import io.grpc.stub.StreamObserver;
import org.jspecify.annotations.Nullable;

/**
 * Holds the engine's one etcd lease: grants it when the first lock needs it, keeps it alive through jetcd's
 * keep-alive (one keep-alive per instance, every third of the time to live, however many locks it holds), notices
 * when it ends, and grants a new one for the next lock after that.
 * <p>
 * The lease ends when etcd says it no longer has it (revoked, or expired), when jetcd gives up keeping it alive, or
 * when its time to live passes without a keep-alive answer. The last is checked here to the moment rather than on
 * jetcd's one-second round. An ended lease is revoked, in case etcd still has it, so that what the engine reports
 * (every lock on it lost) is what etcd does.
 * <p>
 * Callers wait for a grant on a {@link ReentrantLock}, so a virtual thread waiting here does not pin its carrier.
 */
final class LeaseKeeper implements AutoCloseable {

	private static final Log logger = LogFactory.getLog(LeaseKeeper.class);

	private final Lease client;

	private final long ttlSeconds;

	private final ScheduledExecutorService events;

	private final Consumer<InstanceLease> onEnded;

	private final CallAttempts attempts;

	private final ReentrantLock granting = new ReentrantLock();

	private volatile @Nullable InstanceLease current;

	private volatile boolean closed;

	/**
	 * @param ttlSeconds the time to live asked for; etcd may grant more (never less than its minimum)
	 * @param events the thread that checks the time to live and hands on endings
	 * @param onEnded told, on the events thread, of each lease that ended while the keeper was open
	 * @param attempts how a grant is sent again when the leader it went to may have died
	 */
	LeaseKeeper(Lease client, long ttlSeconds, ScheduledExecutorService events, Consumer<InstanceLease> onEnded,
			CallAttempts attempts) {
		this.client = client;
		this.ttlSeconds = ttlSeconds;
		this.events = events;
		this.onEnded = onEnded;
		this.attempts = attempts;
	}

	/**
	 * The live lease, granted now if there is none.
	 * @throws TimeoutException if no lease could be granted within the timeout
	 * @throws ExecutionException if etcd refused or could not be reached
	 * @throws IllegalStateException if the keeper is closed
	 */
	InstanceLease current(long timeoutNanos) throws InterruptedException, TimeoutException, ExecutionException {
		InstanceLease lease = this.current;
		if (lease != null && !lease.isEnded()) {
			return lease;
		}
		long deadline = System.nanoTime() + timeoutNanos;
		if (!this.granting.tryLock(timeoutNanos, TimeUnit.NANOSECONDS)) {
			throw new TimeoutException("Another thread's lease grant did not finish in time");
		}
		try {
			if (this.closed) {
				throw new IllegalStateException("The etcd lock engine is closed");
			}
			lease = this.current;
			if (lease != null && !lease.isEnded()) {
				return lease;
			}
			// The first attempt's sending time: the lease answered, whichever attempt made it, began no earlier.
			long sentAt = System.nanoTime();
			// A grant left unanswered is sent again (its leader may have died). One applied but not answered in time,
			// or answered after another, makes a lease nobody keeps alive and no key is attached to: it expires on its
			// own. A grant that fails goes back to the caller, which tries again within its wait time only.
			LeaseGrantResponse granted = this.attempts
				.callAgainWhenUnanswered((n) -> this.client.grant(this.ttlSeconds),
						Math.max(0, deadline - System.nanoTime()))
				.get();
			lease = new InstanceLease(granted.getID(), granted.getTTL(), sentAt);
			this.current = lease;
			lease.keepAliveBy(this.client.keepAlive(lease.id(), new KeepAliveObserver(lease)));
			if (this.closed) {
				// Closed while the grant was on its way: this lease is nobody's.
				lease.end("the engine was closed");
				revokeQuietly(lease);
				throw new IllegalStateException("The etcd lock engine is closed");
			}
			scheduleCheck(lease);
			return lease;
		}
		finally {
			this.granting.unlock();
		}
	}

	/** The live lease, or null when there is none now (none granted yet, or the last one ended). */
	@Nullable InstanceLease currentIfAlive() {
		InstanceLease lease = this.current;
		return (lease != null && !lease.isEnded()) ? lease : null;
	}

	/** The time to live asked for, in seconds. */
	long ttlSeconds() {
		return this.ttlSeconds;
	}

	/** A call found that etcd no longer has the lease. */
	void gone(InstanceLease lease) {
		end(lease, "etcd no longer has it (revoked, or expired)");
	}

	private void scheduleCheck(InstanceLease lease) {
		long delay = lease.aliveUntilNanos() - System.nanoTime();
		this.events.schedule(() -> check(lease), Math.max(0, delay), TimeUnit.NANOSECONDS);
	}

	/** Ends the lease once its time to live has passed without an answer; else looks again when it will have. */
	private void check(InstanceLease lease) {
		if (lease.isEnded() || this.closed) {
			return;
		}
		if (System.nanoTime() - lease.aliveUntilNanos() >= 0) {
			end(lease, "no keep-alive was answered within its time to live of "
					+ Duration.ofNanos(lease.ttlNanos()).toSeconds() + " s");
		}
		else {
			scheduleCheck(lease);
		}
	}

	/** Ends the lease at once, so that no new lock uses it, and reports its end on the events thread. */
	private void end(InstanceLease lease, String reason) {
		if (!lease.end(reason)) {
			return;
		}
		revokeQuietly(lease);
		if (this.closed) {
			return;
		}
		logger.warn("The " + lease + " of this lock engine ended: " + reason
				+ "; every lock on it is lost, and the next lock takes a new lease");
		try {
			this.events.execute(() -> this.onEnded.accept(lease));
		}
		catch (RuntimeException ex) {
			// Closed meanwhile: nothing is reported after the engine's close.
		}
	}

	private void revokeQuietly(InstanceLease lease) {
		try {
			this.client.revoke(lease.id()).whenComplete((revoked, failure) -> {
				if (failure != null && logger.isDebugEnabled()) {
					logger.debug("Could not revoke the ended " + lease + ": it expires on its own ("
							+ EtcdFailure.of(failure).code() + ")");
				}
			});
		}
		catch (RuntimeException ex) {
			// A closed client: the lease is no longer kept alive, and expires on its own.
		}
	}

	/**
	 * Ends and revokes the lease, waiting at most {@code wait} for etcd's answer: every key the engine still has
	 * goes at once. Nothing is reported.
	 */
	void close(Duration wait) {
		this.closed = true;
		InstanceLease lease = this.current;
		if (lease == null || !lease.end("the engine was closed")) {
			return;
		}
		try {
			this.client.revoke(lease.id()).get(wait.toNanos(), TimeUnit.NANOSECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		catch (ExecutionException | TimeoutException | RuntimeException ex) {
			logger.debug("Could not revoke " + lease + " on close: it expires with its time to live", ex);
		}
	}

	@Override
	public void close() {
		close(Duration.ofSeconds(1));
	}

	/**
	 * Hears jetcd's keep-alive of one lease. Its callbacks come on the client's threads; whatever ends the lease is
	 * handed to the events thread, which reports the losses.
	 */
	private final class KeepAliveObserver implements StreamObserver<LeaseKeepAliveResponse> {

		private final InstanceLease lease;

		KeepAliveObserver(InstanceLease lease) {
			this.lease = lease;
		}

		@Override
		public void onNext(LeaseKeepAliveResponse response) {
			if (response.getTTL() > 0) {
				this.lease.keptAlive(System.nanoTime());
			}
		}

		@Override
		public void onError(Throwable failure) {
			EtcdFailure.Kind kind = EtcdFailure.of(failure).kind();
			if (kind == EtcdFailure.Kind.LEASE_GONE) {
				endLater("etcd no longer has it (revoked, or expired)");
			}
			else if (kind == EtcdFailure.Kind.CLOSED) {
				endLater("the etcd client was closed");
			}
			// Otherwise the stream broke: jetcd opens another, and the time to live decides.
		}

		@Override
		public void onCompleted() {
			endLater("jetcd gave up keeping it alive: no answer within its time to live");
		}

		private void endLater(String reason) {
			try {
				LeaseKeeper.this.events.execute(() -> end(this.lease, reason));
			}
			catch (RuntimeException ex) {
				// The engine is closed.
			}
		}

	}

}
