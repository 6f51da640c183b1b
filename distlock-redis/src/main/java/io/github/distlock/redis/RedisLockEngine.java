package io.github.distlock.redis;

import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.redisson.api.RScript.ReturnType;
import org.redisson.api.RedissonClient;
import org.redisson.client.RedisConnectionException;
import org.redisson.client.RedisException;
import org.redisson.client.RedisTimeoutException;

import io.github.distlock.LockAcquisitionException;
import io.github.distlock.LockLostListener;
import io.github.distlock.LockMode;
import io.github.distlock.LockStoreException;
import io.github.distlock.LostLock;
import io.github.distlock.engine.CheckableLockEngine;
import io.github.distlock.engine.DisplayedKey;
import io.github.distlock.engine.ForceReleasableLockEngine;
import io.github.distlock.engine.HeldLockView;
import io.github.distlock.engine.Leases;
import io.github.distlock.engine.LockEngine;
import io.github.distlock.engine.LockEngineStatistics;
import io.github.distlock.engine.LockHandle;
import io.github.distlock.engine.LockRequest;
import io.github.distlock.engine.ObservableLockEngine;
import io.github.distlock.engine.support.LeaseWatchdog;
import io.github.distlock.engine.support.LostLocks;

/**
 * A {@link LockEngine} on Redis: its own Lua scripts, run through Redisson, which supplies connections, topologies
 * and pub/sub.
 * <p>
 * A lock is one string key ({@link RedisLockKeys}: {@code <prefix>:{<name>:<key>}}, escaped), holding
 * {@code <holder id>|<fencing token>} with the lease as its TTL. Acquisition and release are one script call each;
 * a release hands the lock straight to the first waiter of the lock's queue ({@link RedisAcquisition}) and announces
 * it to that waiter's engine alone ({@link ReleaseSignals}); one watchdog renews every held lock in batches.
 * <p>
 * Read/write locks and permits ({@link SharedLock}) keep their readers or permit holders in a sorted set scored with
 * each holder's expiry, their writer in a string, and serve one first-come-first-served queue of readers, writers or
 * permit holders through the same direct hand-over.
 * <p>
 * On Redis Cluster (a Redisson cluster configuration), every script still touches the keys of one lock, which share
 * one hash slot; what differs is what spans several locks. Renewals are grouped by slot, one script call per slot,
 * all sent in one batch: one round trip per master per tick ({@link SlotGroupedRenewal}). Announcements go to the
 * lock's own shard channels ({@link ShardChannelSubscriptions}, Redis 7). A set of keys is taken in one call only
 * when all lie in one slot ({@link #tryAcquireAll}).
 */
public final class RedisLockEngine
		implements ObservableLockEngine, CheckableLockEngine, ForceReleasableLockEngine, AutoCloseable {

	private static final Log logger = LogFactory.getLog(RedisLockEngine.class);

	/** Longest a waiter sleeps between attempts when no release is announced (a lost message, or no pub/sub). */
	public static final Duration DEFAULT_MAX_POLL = Duration.ofSeconds(1);

	/** Most locks renewed by one script call; larger batches are split so no single call blocks Redis for long. */
	private static final int RENEWAL_BATCH_SIZE = 512;

	/** Extends one lease on its holder's request; loaded here, beside the one method that runs it. */
	private static final LockScripts.Script EXTEND = LockScripts.Script.load("extend.lua");

	/** Gives a lock its holder is done with a set time more; loaded here, beside the one method that runs it. */
	private static final LockScripts.Script RELEASE_AFTER = LockScripts.Script.load("release_after.lua");

	/** Raises a token floor for a {@link RedLockEngine}; loaded here, beside the one method that runs it. */
	private static final LockScripts.Script RAISE_FLOOR = LockScripts.Script.load("token.lua", "raise_floor.lua");

	private final RedisLockKeys keys;

	private final LockScripts scripts;

	private final ReleaseAnnouncements announcements;

	/** Whether the client talks to Redis Cluster, where one script may only touch keys of one hash slot. */
	private final boolean cluster;

	/** Where each lock's token floor lives: one key for all, or one per hash slot on Redis Cluster. */
	private final TokenFloors floors;

	private final Turnstiles turnstiles = new Turnstiles();

	private final LeaseWatchdog<RedisLockHandle> watchdog;

	private final LostLocks lostLocks;

	private final String engineId;

	private final AtomicLong acquisitions = new AtomicLong();

	private final AtomicInteger waiting = new AtomicInteger();

	private final LockEngineStatistics statistics;

	/**
	 * Whether this engine serves one master of a {@link RedLockEngine}: its losses are parts of a lock that may still
	 * be held on a majority, which the RedLock engine judges and reports, so they are not reported here.
	 */
	private final boolean redLockPart;

	/** The lock key of every lock this engine holds, so a single try on one of them needs no round trip. */
	private final ConcurrentHashMap<String, RedisLockHandle> heldHere = new ConcurrentHashMap<>();

	private final RedissonClient client;

	private final long maxPollNanos;

	private final ReplicaAcknowledgement replicas;

	/** Asks Redis how many replicas have a new lock; null when no acknowledgement is required. */
	private final @Nullable ReplicaConfirmation replicaConfirmation;

	/** The last renewal refusal logged, so a standing refusal is logged once and not on every retry. */
	private volatile @Nullable String lastRenewalRefusal;

	/**
	 * @param client the Redis client; the engine does not close it
	 * @param keyPrefix the prefix of every key and channel the engine uses
	 * @param commandTimeout the longest one Redis call may take, or null for the client's own timeout
	 * @param lostListener told of every lost lock
	 */
	public RedisLockEngine(RedissonClient client, String keyPrefix, @Nullable Duration commandTimeout,
			LockLostListener lostListener) {
		this(client, keyPrefix, commandTimeout, lostListener, DEFAULT_MAX_POLL);
	}

	/**
	 * @param maxPoll the longest a waiter sleeps between attempts when no release is announced
	 */
	public RedisLockEngine(RedissonClient client, String keyPrefix, @Nullable Duration commandTimeout,
			LockLostListener lostListener, Duration maxPoll) {
		this(new LockScripts(client, commandTimeout), client, keyPrefix, lostListener, maxPoll);
	}

	/**
	 * @param replicas how many replicas must acknowledge a new lock before the caller gets it
	 */
	public RedisLockEngine(RedissonClient client, String keyPrefix, @Nullable Duration commandTimeout,
			LockLostListener lostListener, Duration maxPoll, ReplicaAcknowledgement replicas) {
		this(new LockScripts(client, commandTimeout), client, keyPrefix, lostListener, maxPoll, replicas);
	}

	/** @param scripts runs the engine's scripts; tests hand in one that holds chosen replies back */
	RedisLockEngine(LockScripts scripts, RedissonClient client, String keyPrefix, LockLostListener lostListener,
			Duration maxPoll) {
		this(scripts, client, keyPrefix, lostListener, maxPoll, ReplicaAcknowledgement.NONE);
	}

	private RedisLockEngine(LockScripts scripts, RedissonClient client, String keyPrefix,
			LockLostListener lostListener, Duration maxPoll, ReplicaAcknowledgement replicas) {
		this(scripts, client, keyPrefix, lostListener, maxPoll, replicas, new LockEngineStatistics(), false);
	}

	/**
	 * The engine of one master of a {@link RedLockEngine}: single tries only, renewals counted in the RedLock
	 * engine's statistics, and losses left to it.
	 */
	static RedisLockEngine redLockPart(RedissonClient client, String keyPrefix, Duration nodeTimeout,
			LockEngineStatistics statistics) {
		return new RedisLockEngine(new LockScripts(client, nodeTimeout), client, keyPrefix, (lost) -> {
		}, DEFAULT_MAX_POLL, ReplicaAcknowledgement.NONE, statistics, true);
	}

	private RedisLockEngine(LockScripts scripts, RedissonClient client, String keyPrefix,
			LockLostListener lostListener, Duration maxPoll, ReplicaAcknowledgement replicas,
			LockEngineStatistics statistics, boolean redLockPart) {
		this.statistics = statistics;
		this.redLockPart = redLockPart;
		this.maxPollNanos = maxPoll.toNanos();
		this.keys = new RedisLockKeys(keyPrefix);
		this.lostLocks = new LostLocks(RedisLockEngine.class, statistics,
				Objects.requireNonNull(lostListener, "lostListener"));
		this.scripts = scripts;
		byte[] id = new byte[8];
		new SecureRandom().nextBytes(id);
		this.engineId = HexFormat.of().formatHex(id);
		this.cluster = client.getConfig().isClusterConfig();
		this.floors = new TokenFloors(keyPrefix, this.cluster);
		this.announcements = redLockPart ? new UnheardAnnouncements(keyPrefix + ":released") : this.cluster
				? ShardChannelSubscriptions.of(client, this.engineId, this.turnstiles::signal)
				: new ReleaseSignals(client, keyPrefix + ":released", this.engineId, this.turnstiles::signal);
		Predicate<Throwable> refusal = (failure) -> RedisFailures.refusal(LockScripts.unwrap(failure)) != null;
		// On Cluster, the watchdog hands every due lock to one renewal, which splits them by slot itself and answers
		// for each master's locks as that master answers.
		this.watchdog = this.cluster
				? LeaseWatchdog.answeredInParts("distlock-watchdog", Integer.MAX_VALUE,
						new SlotGroupedRenewal(scripts, RENEWAL_BATCH_SIZE, this::renewalRefusal)::renew, refusal,
						this::lost, this.statistics)
				: new LeaseWatchdog<>("distlock-watchdog", RENEWAL_BATCH_SIZE, this::renew, refusal, this::lost,
						this.statistics);
		this.client = client;
		this.replicas = Objects.requireNonNull(replicas, "replicas");
		this.replicaConfirmation = replicas.required() ? new ReplicaConfirmation(client, replicas) : null;
	}

	@Override
	public LockHandle acquire(LockRequest request) throws InterruptedException {
		String lockKey = this.keys.lockKey(request.name(), request.key());
		String holderPrefix = this.engineId + ":" + this.acquisitions.incrementAndGet() + "|";
		if (!request.isExclusive()) {
			SharedLock shared = SharedLock.of(lockKey, request, this.floors.of(lockKey));
			RedisLockHandle handle = new RedisAcquisition(this, request, shared.writerKey(), shared.queueKey(),
					holderPrefix, shared).run();
			watch(handle);
			return confirmReplicated(handle, List.of(handle));
		}
		RedisLockHandle handle = new RedisAcquisition(this, request, lockKey, RedisLockKeys.queueKey(lockKey),
				holderPrefix, null).run();
		this.heldHere.put(lockKey, handle);
		watch(handle);
		return confirmReplicated(handle, List.of(handle));
	}

	/**
	 * Has the watchdog keep a new grant alive. With a replica acknowledgement required, the grant is held back first:
	 * until the replicas confirm it the caller does not have it, so a loss found meanwhile is no loss of the caller's.
	 */
	private void watch(RedisLockHandle handle) {
		if (this.replicaConfirmation != null) {
			handle.holdBack();
		}
		this.watchdog.watch(handle);
	}

	/**
	 * With a replica acknowledgement required, makes sure enough replicas have the new locks before the caller gets
	 * them: one write to the first (the others were written before it, by the same script) and WAIT. Not enough
	 * replicas, or no answer, releases them all and fails the call, reporting no loss: the caller never had them.
	 * Confirmed, they are handed out, and a loss found while they were held back is reported then.
	 */
	private RedisLockHandle confirmReplicated(RedisLockHandle first, List<RedisLockHandle> all) {
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
			RuntimeException refused = refused(ex, "confirm", first.name(), first.key());
			throw (refused != null) ? refused
					: new LockAcquisitionException(first.name(), first.key(), Duration.ZERO, ex);
		}
		if (acknowledged >= this.replicas.replicas()) {
			for (RedisLockHandle handle : all) {
				// Decided under the handle's lock, so a loss the watchdog finds just now is reported once, not twice.
				if (handle.handOut()) {
					// The deferred loss was marked, reason and all, before the hand-out.
					LostLock.Reason reason = handle.lossReason();
					reportLoss(handle, (reason != null) ? reason : LostLock.Reason.NOT_OWNED);
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
			if (!release(handle)) {
				logger.debug("An unconfirmed lock was already gone: " + handle);
			}
		}
		catch (RuntimeException ex) {
			// Not reachable: the lock expires with its lease.
		}
	}

	/**
	 * Takes several exclusive locks in one script call when every one is free. On a single Redis or behind Sentinel
	 * the keys may lie in any hash slots. On Redis Cluster one script may only touch keys of one slot, so the keys are
	 * taken together only when all share one; keys spread over several slots (most sets: each lock has a slot of its
	 * own) are left to the caller, one by one: taking each slot's share in its own call would make the set no longer
	 * all or nothing, and undoing a partial grant would show other instances locks that were never really held.
	 * @return the handles, or null when a lock is held (here or elsewhere), a request is not for an exclusive lock,
	 * the keys lie in several slots of a cluster, or Redis did not answer: the caller then takes the locks one by one,
	 * waiting as each request allows
	 */
	@Override
	public @Nullable List<LockHandle> tryAcquireAll(List<LockRequest> requests) {
		if (requests.size() < 2 || !requests.stream().allMatch(LockRequest::isExclusive)) {
			return null;
		}
		List<Object> keys = new ArrayList<>(requests.size());
		List<String> holders = new ArrayList<>(requests.size());
		Object[] args = new Object[requests.size() * 2];
		for (int i = 0; i < requests.size(); i++) {
			LockRequest request = requests.get(i);
			String lockKey = this.keys.lockKey(request.name(), request.key());
			if (heldHere(lockKey)) {
				return null;
			}
			String holderPrefix = this.engineId + ":" + this.acquisitions.incrementAndGet() + "|";
			keys.add(lockKey);
			holders.add(holderPrefix);
			args[2 * i] = holderPrefix;
			args[2 * i + 1] = request.initialLease().toMillis();
		}
		if (this.cluster && !inOneSlot(keys)) {
			return null;
		}
		// One floor for them all: on Redis Cluster they share a slot by now.
		List<Object> scriptKeys = new ArrayList<>(keys);
		scriptKeys.add(this.floors.of((String) keys.get(0)));
		long sentAt = System.nanoTime();
		List<Long> reply;
		try {
			reply = this.scripts.run(LockScripts.ACQUIRE_ALL, ReturnType.LIST, scriptKeys, args);
		}
		catch (RedisException ex) {
			RuntimeException refused = refused(ex, "acquire", requests.get(0).name(), requests.get(0).key());
			if (refused != null) {
				throw refused;
			}
			// The script may have run unheard: let go of whatever it took, then go key by key.
			for (int i = 0; i < keys.size(); i++) {
				String lockKey = (String) keys.get(i);
				releaseQuietly(lockKey, RedisLockKeys.queueKey(lockKey), holders.get(i), null);
			}
			return null;
		}
		if (reply.get(0) != 1L) {
			return null;
		}
		List<RedisLockHandle> handles = new ArrayList<>(requests.size());
		for (int i = 0; i < requests.size(); i++) {
			String lockKey = (String) keys.get(i);
			RedisLockHandle handle = newHandle(requests.get(i), lockKey, RedisLockKeys.queueKey(lockKey),
					holders.get(i), reply.get(1), sentAt, null);
			this.heldHere.put(lockKey, handle);
			watch(handle);
			handles.add(handle);
		}
		confirmReplicated(handles.get(0), handles);
		return List.copyOf(handles);
	}

	private static boolean inOneSlot(List<Object> keys) {
		int slot = HashSlot.of((String) keys.get(0));
		return keys.stream().allMatch((key) -> HashSlot.of((String) key) == slot);
	}

	/** Read/write locks and permits, as well as exclusive locks. */
	@Override
	public boolean supports(LockMode mode, boolean permits) {
		return true;
	}

	/** Whether this engine holds the lock, as far as it knows without asking Redis. */
	boolean heldHere(String redisKey) {
		RedisLockHandle handle = this.heldHere.get(redisKey);
		return handle != null && handle.isHeld() && System.nanoTime() - handle.leaseDeadlineNanos() < 0;
	}

	/**
	 * The exception for a refusal by Redis (see {@link RedisFailures}), or null when the failure may pass by itself.
	 * @param action what was refused, as in "acquire" or "release"
	 */
	@Nullable RuntimeException refused(Throwable failure, String action, String name, String key) {
		String code = RedisFailures.refusal(LockScripts.unwrap(failure));
		if (code == null) {
			return null;
		}
		this.statistics.countRefusal();
		return RedisFailures.refused(LockScripts.unwrap(failure), code, action + " lock '" + name + "' for key '"
				+ DisplayedKey.of(key) + "'", name, key, this.keys.prefix());
	}

	/** Redis' words for the last lock command it refused, while no lock command has succeeded since; else null. */
	@Override
	public @Nullable String standingRefusal() {
		String refusal = this.scripts.refusals().current();
		return (refusal != null) ? "Redis refuses distlock's lock commands: " + refusal : null;
	}

	LockScripts scripts() {
		return this.scripts;
	}

	/**
	 * The channel the scripts announce the releases of a lock on (see {@link ReleaseAnnouncements}); hand-overs to an
	 * engine go to {@code <channel>:<engine id>}.
	 * @param redisKey the exclusive lock's key, or a shared lock's writer key
	 */
	String releaseChannel(String redisKey) {
		return this.announcements.channel(redisKey);
	}

	ReleaseAnnouncements announcements() {
		return this.announcements;
	}

	Turnstiles turnstiles() {
		return this.turnstiles;
	}

	void waitingStarted() {
		this.waiting.incrementAndGet();
	}

	void waitingEnded() {
		this.waiting.decrementAndGet();
	}

	long pollNanos(long remainingTtlMillis) {
		// A TTL of -1 (none) or -2 (just gone) says nothing useful: try again soon.
		long ttl = (remainingTtlMillis > 0) ? TimeUnit.MILLISECONDS.toNanos(remainingTtlMillis) : 0;
		return Math.max(TimeUnit.MILLISECONDS.toNanos(1), Math.min(ttl, this.maxPollNanos));
	}

	/**
	 * @param acquiredAt local time no later than the moment the store granted the lock, from which its lease runs
	 */
	RedisLockHandle newHandle(LockRequest request, String redisKey, String queueKey, String holderPrefix, long token,
			long acquiredAt, @Nullable SharedLock shared) {
		long maxDeadline = (request.maxLease() != null) ? acquiredAt + request.maxLease().toNanos() : Long.MAX_VALUE;
		// The lease Redis was given, in whole milliseconds (RedisAcquisition sends initialLease().toMillis()).
		long grantedLease = TimeUnit.MILLISECONDS.toNanos(request.initialLease().toMillis());
		return new RedisLockHandle(this, request.name(), request.key(), redisKey, queueKey, holderPrefix, token,
				acquiredAt, grantedLease, request.lease().toNanos(), request.autoRenew(), maxDeadline, request.mode(),
				shared);
	}

	boolean release(RedisLockHandle handle) {
		if (!handle.beginRelease()) {
			// Lost (and reported when that was found), or released before.
			return false;
		}
		this.watchdog.unwatch(handle);
		this.heldHere.remove(handle.redisKey, handle);
		List<Object> reply;
		try {
			reply = (handle.shared != null)
					? this.scripts.run(LockScripts.SHARED_RELEASE, ReturnType.LIST, handle.shared.keys(),
							handle.holderPrefix, handle.token(), handle.shared.mode(), releaseChannel(handle.redisKey))
					: this.scripts.run(LockScripts.RELEASE, ReturnType.LIST,
							List.of(handle.redisKey, handle.queueKey, this.floors.of(handle.redisKey)),
							handle.holderPrefix, releaseChannel(handle.redisKey));
		}
		catch (RedisException ex) {
			// Begun within the lease (see beginRelease): nobody else can hold the lock before it ends, so the caller
			// hears that the release was not confirmed, and no loss is reported.
			RuntimeException refused = refused(ex, "release", handle.name(), handle.key());
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
		if (handle.markLostAtRelease(LostLock.Reason.NOT_OWNED)) {
			reportLoss(handle, LostLock.Reason.NOT_OWNED);
		}
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
		if (!handle.beginRelease()) {
			return false;
		}
		this.watchdog.unwatch(handle);
		this.heldHere.remove(handle.redisKey, handle);
		Long owned;
		try {
			owned = this.scripts.run(RELEASE_AFTER, ReturnType.LONG, List.of(handle.redisKey), handle.holderPrefix,
					ttl.toMillis());
		}
		catch (RedisException ex) {
			// Begun within the lease (see beginRelease): nobody else can hold the lock before it ends, so the caller
			// hears that the release was not confirmed, and no loss is reported.
			RuntimeException refused = refused(ex, "release", handle.name(), handle.key());
			throw (refused != null) ? refused : ex;
		}
		if (owned == 1L) {
			handle.markReleased();
			return true;
		}
		if (handle.markLostAtRelease(LostLock.Reason.NOT_OWNED)) {
			reportLoss(handle, LostLock.Reason.NOT_OWNED);
		}
		return false;
	}

	boolean verify(RedisLockHandle handle) {
		if (!handle.isHeld()) {
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
			lost(handle, (RedisFailures.refusal(ex) != null) ? LostLock.Reason.STORE_REFUSED
					: LostLock.Reason.STORE_UNREACHABLE);
			return false;
		}
		if (owned == 1L) {
			return true;
		}
		lost(handle, LostLock.Reason.NOT_OWNED);
		return false;
	}

	/**
	 * Extends a lease on its holder's request: one call of {@code extend.lua}, which checks ownership and never
	 * shortens the lease. A lock found not ours is lost (and reported only while the owner is not releasing it); an
	 * unreachable store extends nothing and loses nothing, since the lease granted earlier still runs.
	 */
	boolean extend(RedisLockHandle handle, Duration ttl) {
		Leases.requireLease(ttl, "ttl");
		if (!handle.isHeld()) {
			return false;
		}
		long sentAt = System.nanoTime();
		long ttlMillis = handle.ttlMillisFrom(sentAt, ttl.toNanos());
		if (ttlMillis < 1) {
			return false;
		}
		Long owned;
		try {
			owned = handle.isSharedHolder()
					? this.scripts.run(LockScripts.SHARED_CHECK, ReturnType.LONG, List.of(handle.grantKey()),
							handle.member(), ttlMillis)
					: this.scripts.run(EXTEND, ReturnType.LONG, List.of(handle.redisKey), handle.holderPrefix,
							ttlMillis);
		}
		catch (RedisException ex) {
			return false;
		}
		if (owned == 1L) {
			// Confirmed after the lease ran out, it extends nothing: the lock is lost at its deadline.
			return handle.extended(sentAt, TimeUnit.MILLISECONDS.toNanos(ttlMillis));
		}
		lost(handle, LostLock.Reason.NOT_OWNED);
		return false;
	}

	/** The token floor key of the lock stored under {@code lockKey} (see {@link TokenFloors}). */
	String tokenFloor(String lockKey) {
		return this.floors.of(lockKey);
	}

	/**
	 * Releases, without waiting for the answer, a lock this holder may have been given without hearing of it.
	 * @param shared where a shared lock lives, or null for an exclusive lock
	 */
	void releaseQuietly(String redisKey, String queueKey, String holderPrefix, @Nullable SharedLock shared) {
		if (shared != null) {
			this.scripts.runAsync(LockScripts.SHARED_RELEASE, ReturnType.LIST, shared.keys(), holderPrefix, "",
					shared.mode(), releaseChannel(redisKey));
			return;
		}
		this.scripts.runAsync(LockScripts.RELEASE, ReturnType.LIST,
				List.of(redisKey, queueKey, this.floors.of(redisKey)), holderPrefix, releaseChannel(redisKey));
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

	/** A loss found by renewal, a check or the lease deadline: reported only while the owner has not begun to release. */
	void lost(RedisLockHandle handle, LostLock.Reason reason) {
		this.watchdog.unwatch(handle);
		this.heldHere.remove(handle.redisKey, handle);
		if (handle.markLost(reason)) {
			reportLoss(handle, reason);
			if (reason == LostLock.Reason.STORE_UNREACHABLE || reason == LostLock.Reason.STORE_REFUSED) {
				// Given up unconfirmed: a renewal still on its way may yet reach Redis and keep the key another lease,
				// which nobody would release. Removed if it is still this holder's (never another's), unanswered.
				releaseQuietly(handle.redisKey, handle.queueKey, handle.holderPrefix, handle.shared);
			}
		}
	}

	private void reportLoss(RedisLockHandle handle, LostLock.Reason reason) {
		if (handle.deferLoss()) {
			// The caller does not have it yet: reported when handed out, if it ever is (see confirmReplicated).
			logger.debug("A grant awaiting replica acknowledgement was lost (" + reason + "): " + handle);
			return;
		}
		if (this.redLockPart) {
			logger.debug("A RedLock part was lost (" + reason + "): " + handle);
			return;
		}
		this.lostLocks.report(handle, reason);
	}

	/**
	 * Raises the token floor of a lock this engine holds to {@code token} (never lowers it), so that the next grant
	 * of any lock in its hash slot here gets a larger token: how a {@link RedLockEngine} makes the token of a majority
	 * the floor on each of its masters.
	 */
	CompletionStage<Object> raiseFloor(LockHandle part, long token) {
		String lockKey = this.keys.lockKey(part.name(), part.key());
		return this.scripts.runByShaAsync(RAISE_FLOOR, ReturnType.LONG, List.of(this.floors.of(lockKey)),
				Long.toString(token));
	}

	/** Locks this engine holds now. */
	@Override
	public int heldCount() {
		return this.watchdog.watchedCount();
	}

	/** A snapshot of the locks this engine holds now. */
	@Override
	public List<HeldLockView> heldLocks() {
		long now = System.nanoTime();
		return this.watchdog.watched()
			.stream()
			.filter(RedisLockHandle::isHeld)
			.map((handle) -> handle.view(handle.holderPrefix.substring(0, handle.holderPrefix.length() - 1), now))
			.toList();
	}

	/** Threads waiting for a lock in this engine now. */
	@Override
	public int waitingCount() {
		return this.waiting.get();
	}

	/** How late the most overdue lease renewal is (zero while the watchdog keeps up). */
	@Override
	public Duration renewalLag() {
		return this.watchdog.renewalLag();
	}

	@Override
	public LockEngineStatistics statistics() {
		return this.statistics;
	}

	/**
	 * One round trip to Redis, bounded by the timeout.
	 * @return the round-trip time
	 * @throws RedisException if Redis did not answer in time
	 */
	@Override
	public Duration ping(Duration timeout) {
		long start = System.nanoTime();
		LockScripts.forOneCall(this.client, timeout)
			.run(LockScripts.PING, ReturnType.LONG, List.of(this.keys.healthKey()));
		return Duration.ofNanos(System.nanoTime() - start);
	}

	/**
	 * What a failed call to Redis means, in words for an operator: refused (with Redis' words, never an address),
	 * unreachable, or no answer within the timeout.
	 */
	@Override
	public String describeFailure(Throwable failure, Duration timeout) {
		Throwable cause = LockScripts.unwrap(failure);
		String code = RedisFailures.refusal(cause);
		if (code != null) {
			return "Redis refused the command: " + RedisFailures.describe(cause, code);
		}
		if (cause instanceof RedisTimeoutException) {
			return "Redis did not answer within " + timeout.toMillis() + " ms";
		}
		if (cause instanceof RedisConnectionException) {
			return "Redis could not be reached (" + cause.getClass().getSimpleName() + ")";
		}
		return "Redis call failed (" + cause.getClass().getSimpleName() + ")";
	}

	/** Redis's eviction policy ({@code evictionPolicy}), and a {@code warning} when it can evict held locks. */
	@Override
	public Map<String, Object> storeDetails(Duration timeout) {
		EvictionPolicy policy = new EvictionPolicyReader(this.client, timeout).read();
		Map<String, Object> details = new LinkedHashMap<>();
		details.put("evictionPolicy", policy.policy());
		if (policy.hazard() != null) {
			details.put("warning", policy.hazard());
		}
		return details;
	}

	/**
	 * Removes a lock whoever holds it. Its holder finds the lock lost at its next renewal.
	 * @return whether there was such a lock
	 */
	@Override
	public boolean forceRelease(String name, String key) {
		String lockKey = this.keys.lockKey(name, key);
		Long removed = this.scripts.run(LockScripts.FORCE_RELEASE, ReturnType.LONG, List.of(lockKey),
				releaseChannel(lockKey));
		return removed == 1L;
	}

	@Override
	public void close() {
		this.watchdog.close();
		this.announcements.close();
		this.scripts.close();
	}

	/**
	 * The announcements of a {@link RedLockEngine}'s part engine, which only ever tries once and so never waits for
	 * one: its releases still announce (to nobody of its own), and it subscribes to nothing, so a master that is down
	 * when the engine starts costs no subscription timeout.
	 */
	private record UnheardAnnouncements(String channel) implements ReleaseAnnouncements {

		@Override
		public String channel(String lockKey) {
			return this.channel;
		}

		@Override
		public @Nullable Subscription subscribe(String lockKey) {
			return null;
		}

		@Override
		public void close() {
		}

	}

}
