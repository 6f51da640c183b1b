package io.github.distlock.etcd;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.etcd.jetcd.support.CloseableClient;
import org.jspecify.annotations.Nullable;

/**
 * One etcd lease granted to the engine, which every key the engine creates is attached to: while it lives, so do
 * they; when etcd ends it (it expired, or someone revoked it), etcd deletes them all at once.
 * <p>
 * It is known alive until its time to live after the last keep-alive answer. It ends once: when etcd says it no
 * longer has it, when jetcd gives up keeping it alive, or when that time passes without an answer. An ended lease is
 * never used again, even should etcd still have it (a new leader restarts every lease's time to live): the engine
 * revokes it, and takes a new lease for its next lock.
 */
final class InstanceLease {

	private final long id;

	private final long ttlNanos;

	private final CompletableFuture<String> ended = new CompletableFuture<>();

	private volatile long aliveUntilNanos;

	private volatile @Nullable CloseableClient keepAlive;

	/**
	 * @param grantSentAtNanos when the grant was sent: etcd started the time to live no earlier
	 * @param ttlSeconds the time to live etcd granted
	 */
	InstanceLease(long id, long ttlSeconds, long grantSentAtNanos) {
		this.id = id;
		this.ttlNanos = TimeUnit.SECONDS.toNanos(ttlSeconds);
		this.aliveUntilNanos = grantSentAtNanos + this.ttlNanos;
	}

	long id() {
		return this.id;
	}

	long ttlNanos() {
		return this.ttlNanos;
	}

	/** Monotonic time until which etcd keeps the lease without another keep-alive. */
	long aliveUntilNanos() {
		return this.aliveUntilNanos;
	}

	/** A keep-alive answered at {@code answeredAtNanos}, restarting the time to live. */
	void keptAlive(long answeredAtNanos) {
		long until = answeredAtNanos + this.ttlNanos;
		if (until - this.aliveUntilNanos > 0) {
			this.aliveUntilNanos = until;
		}
	}

	/** The keep-alive to stop when the lease ends; stopped at once should it have ended already. */
	void keepAliveBy(CloseableClient keepAlive) {
		this.keepAlive = keepAlive;
		if (isEnded()) {
			keepAlive.close();
		}
	}

	boolean isEnded() {
		return this.ended.isDone();
	}

	/** Completes, with the reason, when the lease ends. */
	CompletableFuture<String> ended() {
		return this.ended;
	}

	/**
	 * Ends the lease and stops keeping it alive.
	 * @return whether this call ended it
	 */
	boolean end(String reason) {
		if (!this.ended.complete(reason)) {
			return false;
		}
		CloseableClient keepAlive = this.keepAlive;
		if (keepAlive != null) {
			keepAlive.close();
		}
		return true;
	}

	@Override
	public String toString() {
		return "etcd lease " + Long.toHexString(this.id);
	}

}
