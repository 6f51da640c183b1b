package io.github.distlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.redisson.api.RScript.ReturnType;
import org.redisson.client.RedisException;

import io.github.distlock.LockLostListener;
import io.github.distlock.LostLock;
import io.github.distlock.engine.Leases;
import io.github.distlock.engine.LockEngineStatistics;
import io.github.distlock.engine.support.EngineLocks;
import io.github.distlock.engine.support.LeaseWatchdog;

/**
 * What held locks' handles ask of Redis, each one script call that checks the holder: a release (handing the lock
 * to the first waiter and announcing it), a later release, a check, an extension, and the watchdog's renewals (in
 * batches; on Cluster grouped by hash slot, {@link SlotGroupedRenewal}). The locks themselves and every loss are kept
 * by {@link EngineLocks}; a lock given up unconfirmed is removed quietly once its holder has been told.
 */
final class HeldRedisLocks implements EngineLocks.Store<RedisLockHandle>, AutoCloseable {

	private static final Log logger = LogFactory.getLog(RedisLockEngine.class);

	/** Most locks renewed by one script call; larger batches are split so no single call blocks Redis for long. */
	private static final int RENEWAL_BATCH_SIZE = 512;

	/** Extends one lease on its holder's request; loaded here, beside the one method that runs it. */
	private static final LockScripts.Script EXTEND = LockScripts.Script.load("extend.lua");

	/** Gives a lock its holder is done with a set time more; loaded here, beside the one method that runs it. */
	private static final LockScripts.Script RELEASE_AFTER = LockScripts.Script.load("release_after.lua");

	private final LockScripts scripts;

	private final RedisLockKeys keys;

	private final TokenFloors floors;

	private final ReleaseAnnouncements announcements;

	private final RedisRefusals refusals;

	private final LossAudience audience;

	private final long maxPollNanos;

	/** The lock key of every exclusive lock this engine holds, so a single try on one of them needs no round trip. */
	private final ConcurrentHashMap<String, RedisLockHandle> heldHere = new ConcurrentHashMap<>();

	private final EngineLocks<RedisLockHandle> locks;

	/** The last renewal refusal logged, so a standing refusal is logged once and not on every retry. */
	private volatile @Nullable String lastRenewalRefusal;

	HeldRedisLocks(LockScripts scripts, RedisLockKeys keys, TokenFloors floors, ReleaseAnnouncements announcements,
			RedisRefusals refusals, long maxPollNanos, boolean cluster, LossAudience audience,
			LockLostListener listener, LockEngineStatistics statistics) {
		this.scripts = scripts;
		this.keys = keys;
		this.floors = floors;
		this.announcements = announcements;
		this.refusals = refusals;
		this.maxPollNanos = maxPollNanos;
		this.audience = audience;
		Predicate<Throwable> refusal = (failure) -> RedisFailures.refusal(LockScripts.unwrap(failure)) != null;
		// On Cluster, the watchdog hands every due lock to one renewal, which splits them by slot itself and answers
		// for each master's locks as that master answers.
		this.locks = new EngineLocks<>(RedisLockEngine.class, statistics, listener, this,
				(lossReporter) -> cluster
						? LeaseWatchdog.answeredInParts("distlock-watchdog", Integer.MAX_VALUE,
								new SlotGroupedRenewal(scripts, RENEWAL_BATCH_SIZE, this::renewalRefusal)::renew,
								refusal, lossReporter, statistics)
						: new LeaseWatchdog<>("distlock-watchdog", RENEWAL_BATCH_SIZE, this::renew, refusal,
								lossReporter, statistics));
	}

	/** The engine's held locks. */
	EngineLocks<RedisLockHandle> locks() {
		return this.locks;
	}

	/** Holds a lock just granted: renewed from now on, and an exclusive one known by its key. */
	void hold(RedisLockHandle handle) {
		if (handle.shared == null) {
			this.heldHere.put(handle.redisKey, handle);
		}
		this.locks.hold(handle);
	}

	/** Whether this engine holds the lock, as far as it knows without asking Redis. */
	boolean heldHere(String redisKey) {
		RedisLockHandle handle = this.heldHere.get(redisKey);
		return handle != null && handle.isHeld() && System.nanoTime() - handle.leaseDeadlineNanos() < 0;
	}

	boolean release(RedisLockHandle handle) {
		if (!this.locks.beginRelease(handle)) {
			// Lost (and reported when that was found), or released before.
			return false;
		}
		List<Object> reply;
		try {
			reply = (handle.shared != null)
					? this.scripts.run(LockScripts.SHARED_RELEASE, ReturnType.LIST, handle.shared.keys(),
							handle.holderPrefix, handle.token(), handle.shared.mode(), this.announcements.channel(handle.redisKey))
					: this.scripts.run(LockScripts.RELEASE, ReturnType.LIST,
							List.of(handle.redisKey, handle.queueKey, this.floors.of(handle.redisKey)),
							handle.holderPrefix, this.announcements.channel(handle.redisKey));
		}
		catch (RedisException ex) {
			// Begun within the lease (see beginRelease): nobody else can hold the lock before it ends, so the caller
			// hears that the release was not confirmed, and no loss is reported.
			RuntimeException refused = this.refusals.refused(ex, "release", handle.name(), handle.key());
			throw (refused != null) ? refused : ex;
		}
		long outcome = (Long) reply.get(0);
		if (outcome != 0L) {
			handle.markReleased();
			if (outcome == 3L) {
				// Released; only the announcement to waiters was refused: they find the lock at their next poll.
				logger.warn("Released " + handle + ", but Redis refused to announce it to waiting instances ("
						+ reply.get(1) + "); they notice at their next poll, within " + this.maxPollNanos / 1_000_000
						+ " ms. " + RedisFailures.advice("NOPERM", this.keys.prefix()));
			}
			return true;
		}
		this.locks.lostAtRelease(handle, LostLock.Reason.NOT_OWNED);
		return false;
	}

	/**
	 * Gives a lock its holder is done with exactly {@code ttl} more in Redis ({@code release_after.lua}), after which
	 * it expires: one call, owner-checked. Exclusive locks only: a shared lock's holders expire by their own score.
	 */
	boolean releaseAfter(RedisLockHandle handle, Duration ttl) {
		Leases.requireLease(ttl, "ttl");
		if (handle.shared != null) {
			throw new UnsupportedOperationException("A read/write lock or a permit cannot be released later");
		}
		if (!this.locks.beginRelease(handle)) {
			return false;
		}
		Long owned;
		try {
			owned = this.scripts.run(RELEASE_AFTER, ReturnType.LONG, List.of(handle.redisKey), handle.holderPrefix,
					ttl.toMillis());
		}
		catch (RedisException ex) {
			// Begun within the lease (see beginRelease): nobody else can hold the lock before it ends, so the caller
			// hears that the release was not confirmed, and no loss is reported.
			RuntimeException refused = this.refusals.refused(ex, "release", handle.name(), handle.key());
			throw (refused != null) ? refused : ex;
		}
		if (owned == 1L) {
			handle.markReleased();
			return true;
		}
		this.locks.lostAtRelease(handle, LostLock.Reason.NOT_OWNED);
		return false;
	}

	boolean verify(RedisLockHandle handle) {
		if (!handle.isHeld()) {
			this.locks.awaitLossReport(handle);
			return false;
		}
		long sentAt = System.nanoTime();
		Long owned;
		try {
			owned = handle.isSharedHolder()
					? this.scripts.run(LockScripts.SHARED_CHECK, ReturnType.LONG, List.of(handle.grantKey()),
							handle.member(), 0)
					: this.scripts.run(LockScripts.CHECK, ReturnType.LONG, List.of(handle.redisKey),
							handle.holderPrefix);
		}
		catch (RedisException ex) {
			if (sentAt - handle.leaseDeadlineNanos() < 0) {
				// Unconfirmed, but the lease granted earlier still runs: nobody else can hold the lock yet.
				return true;
			}
			this.locks.lost(handle, (RedisFailures.refusal(ex) != null) ? LostLock.Reason.STORE_REFUSED
					: LostLock.Reason.STORE_UNREACHABLE);
			return false;
		}
		if (owned == 1L) {
			return true;
		}
		this.locks.lost(handle, LostLock.Reason.NOT_OWNED);
		return false;
	}

	/**
	 * Extends a lease on its holder's request: one call of {@code extend.lua}, which checks ownership and never
	 * shortens the lease. A lock found not ours is lost (and reported only while the owner is not releasing it); an
	 * unreachable store extends nothing and loses nothing, since the lease granted earlier still runs.
	 */
	boolean extend(RedisLockHandle handle, Duration ttl) {
		EngineLocks.Extension extension = this.locks.beginExtension(handle, ttl);
		if (extension == null) {
			return false;
		}
		Long owned;
		try {
			owned = handle.isSharedHolder()
					? this.scripts.run(LockScripts.SHARED_CHECK, ReturnType.LONG, List.of(handle.grantKey()),
							handle.member(), extension.ttlMillis())
					: this.scripts.run(EXTEND, ReturnType.LONG, List.of(handle.redisKey), handle.holderPrefix,
							extension.ttlMillis());
		}
		catch (RedisException ex) {
			return false;
		}
		if (owned == 1L) {
			// Confirmed after the lease ran out, it extends nothing: the lock is lost at its deadline.
			return extension.confirmed(handle);
		}
		this.locks.lost(handle, LostLock.Reason.NOT_OWNED);
		return false;
	}

	/**
	 * Releases, without waiting for the answer, a lock this holder may have been given without hearing of it.
	 * @param shared where a shared lock lives, or null for an exclusive lock
	 */
	void releaseQuietly(String redisKey, String queueKey, String holderPrefix, @Nullable SharedLock shared) {
		if (shared != null) {
			this.scripts.runAsync(LockScripts.SHARED_RELEASE, ReturnType.LIST, shared.keys(), holderPrefix, "",
					shared.mode(), this.announcements.channel(redisKey));
			return;
		}
		this.scripts.runAsync(LockScripts.RELEASE, ReturnType.LIST,
				List.of(redisKey, queueKey, this.floors.of(redisKey)), holderPrefix, this.announcements.channel(redisKey));
	}

	/** Renews a batch in one script call: on a single Redis or behind Sentinel, where its keys may lie in any slot. */
	private CompletionStage<List<Boolean>> renew(List<RedisLockHandle> handles, List<Long> ttlMillis) {
		List<Object> keys = new ArrayList<>(handles.size());
		Object[] args = SlotGroupedRenewal.arguments(handles, ttlMillis, keys);
		CompletionStage<List<Long>> reply = this.scripts.runByShaAsync(LockScripts.RENEW, ReturnType.LIST, keys, args);
		return reply.whenComplete((answers, ex) -> renewalRefusal(ex, handles.size()))
			.thenApply((answers) -> answers.stream().map((one) -> one == 1L).toList());
	}

	/** Says once per refusal (until renewals succeed again) that Redis refuses to renew: the locks will be lost. */
	void renewalRefusal(@Nullable Throwable failure, int locks) {
		Throwable cause = (failure != null) ? LockScripts.unwrap(failure) : null;
		String code = (cause != null) ? RedisFailures.refusal(cause) : null;
		String message = (cause != null && code != null) ? "Redis refused to renew " + locks + " held lock(s): "
				+ RedisFailures.describe(cause, code) + ". " + RedisFailures.advice(code, this.keys.prefix()) : null;
		if (message != null && !message.equals(this.lastRenewalRefusal)) {
			logger.warn(message + " Held locks will be lost when their leases run out.");
		}
		this.lastRenewalRefusal = message;
	}

	@Override
	public void forget(RedisLockHandle handle) {
		this.heldHere.remove(handle.redisKey, handle);
	}

	/**
	 * A lock given up unconfirmed (the store unreachable or refusing): a renewal still on its way may yet reach Redis
	 * and keep the key another lease, which nobody would release. Removed if it is still this holder's (never
	 * another's), unanswered.
	 */
	@Override
	public void afterLoss(RedisLockHandle handle, LostLock.Reason reason) {
		if (reason == LostLock.Reason.STORE_UNREACHABLE || reason == LostLock.Reason.STORE_REFUSED) {
			releaseQuietly(handle.redisKey, handle.queueKey, handle.holderPrefix, handle.shared);
		}
	}

	@Override
	public boolean toldNow(RedisLockHandle handle) {
		return this.audience.hearsOf(handle);
	}

	@Override
	public String whyNotTold() {
		return this.audience.whyNot();
	}

	@Override
	public String holder(RedisLockHandle handle) {
		return handle.holderPrefix.substring(0, handle.holderPrefix.length() - 1);
	}

	@Override
	public void close() {
		this.locks.close();
	}

	/** Who hears of this engine's lost locks, and when. */
	interface LossAudience {

		/** The application, once it has the lock: a grant held back for the replicas is told when handed out. */
		LossAudience APPLICATION = new LossAudience() {

			@Override
			public boolean hearsOf(RedisLockHandle handle) {
				return !handle.deferLoss();
			}

			@Override
			public String whyNot() {
				return "the grant awaits the replicas' acknowledgement, and is told when handed out, if ever";
			}

		};

		/** Nobody here: the engine serves one master of a RedLock, whose engine judges and tells the whole lock's loss. */
		LossAudience REDLOCK = new LossAudience() {

			@Override
			public boolean hearsOf(RedisLockHandle handle) {
				return false;
			}

			@Override
			public String whyNot() {
				return "a part of a RedLock, whose engine judges the loss of the whole";
			}

		};

		boolean hearsOf(RedisLockHandle handle);

		String whyNot();

	}

}
