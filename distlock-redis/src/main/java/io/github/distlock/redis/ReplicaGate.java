package io.github.distlock.redis;

import java.time.Duration;
import java.util.List;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.redisson.api.RedissonClient;
import org.redisson.client.RedisException;

import io.github.distlock.LockAcquisitionException;
import io.github.distlock.LockStoreException;
import io.github.distlock.engine.DisplayedKey;

/**
 * Where new grants wait for the replicas' acknowledgement ({@code distlock.redis.min-replicas-acked}) before the
 * caller gets them; with none required, grants pass straight through.
 */
final class ReplicaGate {

	private static final Log logger = LogFactory.getLog(RedisLockEngine.class);

	private final ReplicaAcknowledgement replicas;

	/** Asks Redis how many replicas have a new lock; null when no acknowledgement is required. */
	private final @Nullable ReplicaConfirmation replicaConfirmation;

	private final HeldRedisLocks held;

	private final RedisRefusals refusals;

	ReplicaGate(RedissonClient client, ReplicaAcknowledgement replicas, HeldRedisLocks held, RedisRefusals refusals) {
		this.replicas = replicas;
		this.replicaConfirmation = replicas.required() ? new ReplicaConfirmation(client, replicas) : null;
		this.held = held;
		this.refusals = refusals;
	}

	/**
	 * Holds a new grant (renewed from now on). With a replica acknowledgement required, the grant is held back first:
	 * until the replicas confirm it the caller does not have it, so a loss found meanwhile is no loss of the caller's.
	 */
	void hold(RedisLockHandle handle) {
		if (this.replicaConfirmation != null) {
			handle.holdBack();
		}
		this.held.hold(handle);
	}

	/**
	 * With a replica acknowledgement required, makes sure enough replicas have the new locks before the caller gets
	 * them: one write to the first (the others were written before it, by the same script) and WAIT. Not enough
	 * replicas, or no answer, releases them all and fails the call, reporting no loss: the caller never had them.
	 * Confirmed, they are handed out, and a loss found while they were held back is reported then.
	 */
	RedisLockHandle confirmed(RedisLockHandle first, List<RedisLockHandle> all) {
		if (this.replicaConfirmation == null) {
			return first;
		}
		int acknowledged;
		try {
			acknowledged = this.replicaConfirmation.confirm(first.grantKey(), first.isSharedHolder() ? "z" : "s",
					first.isSharedHolder() ? first.member() : first.holderPrefix);
		}
		catch (RedisException ex) {
			all.forEach(this::releaseUnconfirmed);
			RuntimeException refused = this.refusals.refused(ex, "confirm", first.name(), first.key());
			throw (refused != null) ? refused
					: new LockAcquisitionException(first.name(), first.key(), Duration.ZERO, ex);
		}
		if (acknowledged >= this.replicas.replicas()) {
			for (RedisLockHandle handle : all) {
				// Decided under the handle's lock, so a loss the watchdog finds just now is reported once, not twice.
				if (handle.handOut()) {
					// The deferred loss was marked, reason and all, before the hand-out.
					this.held.locks().tellHeldBack(handle);
				}
			}
			return first;
		}
		all.forEach(this::releaseUnconfirmed);
		if (acknowledged < 0) {
			// Gone between the grant and the confirmation (removed, or a failover already): nothing to hand out.
			throw new LockAcquisitionException(first.name(), first.key(), Duration.ZERO, null);
		}
		throw new LockStoreException(first.name(), first.key(), "NOREPLICAS", "Lock '" + first.name() + "' for key '"
				+ DisplayedKey.of(first.key()) + "' was acquired on the Redis master, but only " + acknowledged
				+ " of the " + this.replicas.replicas() + " replica(s) distlock.redis.min-replicas-acked asks for "
				+ "acknowledged it within " + this.replicas.timeout().toMillis() + " ms, so it was released rather "
				+ "than handed out: a failover now could lose it. Check the replicas' link to the master "
				+ "(INFO replication), or lower distlock.redis.min-replicas-acked.", null);
	}

	/** Lets go of a lock the caller never got (held back): no loss to report, whatever the store answers. */
	private void releaseUnconfirmed(RedisLockHandle handle) {
		try {
			if (!this.held.release(handle)) {
				logger.debug("An unconfirmed lock was already gone: " + handle);
			}
		}
		catch (RuntimeException ex) {
			// Not reachable: the lock expires with its lease.
		}
	}

}
