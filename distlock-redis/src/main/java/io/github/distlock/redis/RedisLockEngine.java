package io.github.distlock.redis;

import java.security.SecureRandom;
import java.time.Duration;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.redisson.api.RScript.ReturnType;
import org.redisson.api.RedissonClient;
import org.redisson.client.RedisConnectionException;
import org.redisson.client.RedisException;
import org.redisson.client.RedisTimeoutException;

import io.github.distlock.LockLostListener;
import io.github.distlock.LockMode;
import io.github.distlock.engine.CheckableLockEngine;
import io.github.distlock.engine.ForceReleasableLockEngine;
import io.github.distlock.engine.LockEngine;
import io.github.distlock.engine.LockEngineStatistics;
import io.github.distlock.engine.LockHandle;
import io.github.distlock.engine.LockRequest;
import io.github.distlock.engine.support.EngineLocks;
import io.github.distlock.engine.support.LeasedLockEngine;

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
public final class RedisLockEngine extends LeasedLockEngine
		implements CheckableLockEngine, ForceReleasableLockEngine, AutoCloseable {

	private static final Log logger = LogFactory.getLog(RedisLockEngine.class);

	/** Longest a waiter sleeps between attempts when no release is announced (a lost message, or no pub/sub). */
	public static final Duration DEFAULT_MAX_POLL = Duration.ofSeconds(1);

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

	private final HeldRedisLocks held;

	private final EngineLocks<RedisLockHandle> locks;

	private final RedisRefusals refusals;

	private final String engineId;

	private final AtomicLong acquisitions = new AtomicLong();

	private final AtomicInteger waiting = new AtomicInteger();

	private final RedissonClient client;

	private final long maxPollNanos;

	private final ReplicaGate gate;

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
		this(scripts, client, keyPrefix, lostListener, maxPoll, replicas, new LockEngineStatistics(),
				HeldRedisLocks.LossAudience.APPLICATION, Announcing.ON_CHANNELS);
	}

	/** An engine that hears no release announcement, as one whose subscription is gone: what polling alone does. */
	static RedisLockEngine unhearing(RedissonClient client, String keyPrefix, LockLostListener lostListener,
			Duration maxPoll) {
		return new RedisLockEngine(new LockScripts(client, null), client, keyPrefix, lostListener, maxPoll,
				ReplicaAcknowledgement.NONE, new LockEngineStatistics(), HeldRedisLocks.LossAudience.APPLICATION,
				Announcing.UNHEARD);
	}

	/**
	 * The engine of one master of a {@link RedLockEngine}: single tries only (so it subscribes to no announcement),
	 * renewals counted in the RedLock engine's statistics, and losses left to it.
	 */
	static RedisLockEngine redLockPart(RedissonClient client, String keyPrefix, Duration nodeTimeout,
			LockEngineStatistics statistics) {
		return new RedisLockEngine(new LockScripts(client, nodeTimeout), client, keyPrefix, (lost) -> {
		}, DEFAULT_MAX_POLL, ReplicaAcknowledgement.NONE, statistics, HeldRedisLocks.LossAudience.REDLOCK,
				Announcing.UNHEARD);
	}

	private RedisLockEngine(LockScripts scripts, RedissonClient client, String keyPrefix,
			LockLostListener lostListener, Duration maxPoll, ReplicaAcknowledgement replicas,
			LockEngineStatistics statistics, HeldRedisLocks.LossAudience audience, Announcing announcing) {
		this.maxPollNanos = maxPoll.toNanos();
		this.keys = new RedisLockKeys(keyPrefix);
		this.refusals = new RedisRefusals(statistics, keyPrefix);
		this.scripts = scripts;
		byte[] id = new byte[8];
		new SecureRandom().nextBytes(id);
		this.engineId = HexFormat.of().formatHex(id);
		this.cluster = client.getConfig().isClusterConfig();
		this.floors = new TokenFloors(keyPrefix, this.cluster);
		this.announcements = announcing.announcements(client, keyPrefix, this.engineId, this.turnstiles::signal);
		this.held = new HeldRedisLocks(scripts, this.keys, this.floors, this.announcements, this.refusals,
				this.maxPollNanos, this.cluster, audience, Objects.requireNonNull(lostListener, "lostListener"),
				statistics);
		this.locks = this.held.locks();
		this.client = client;
		this.gate = new ReplicaGate(client, Objects.requireNonNull(replicas, "replicas"), this.held, this.refusals);
	}

	@Override
	public LockHandle acquire(LockRequest request) throws InterruptedException {
		String lockKey = this.keys.lockKey(request.name(), request.key());
		String holderPrefix = nextHolderPrefix();
		if (!request.isExclusive()) {
			SharedLock shared = SharedLock.of(lockKey, request, this.floors.of(lockKey));
			RedisLockHandle handle = new RedisAcquisition(this, request, shared.writerKey(), shared.queueKey(),
					holderPrefix, shared).run();
			this.gate.hold(handle);
			return this.gate.confirmed(handle, List.of(handle));
		}
		RedisLockHandle handle = new RedisAcquisition(this, request, lockKey, RedisLockKeys.queueKey(lockKey),
				holderPrefix, null).run();
		this.gate.hold(handle);
		return this.gate.confirmed(handle, List.of(handle));
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
		List<RedisLockHandle> handles = new KeySetAttempt(this, this.keys, this.scripts, this.floors, this.cluster)
			.run(requests);
		if (handles == null) {
			return null;
		}
		handles.forEach(this.gate::hold);
		this.gate.confirmed(handles.get(0), handles);
		return List.copyOf(handles);
	}

	/** A new holder id, "&lt;engine id&gt;:&lt;acquisition&gt;|": the prefix of the value that proves ownership. */
	String nextHolderPrefix() {
		return this.engineId + ":" + this.acquisitions.incrementAndGet() + "|";
	}

	/** Read/write locks and permits, as well as exclusive locks. */
	@Override
	public boolean supports(LockMode mode, boolean permits) {
		return true;
	}

	/** Whether this engine holds the lock, as far as it knows without asking Redis. */
	boolean heldHere(String redisKey) {
		return this.held.heldHere(redisKey);
	}

	/** @see RedisRefusals#refused */
	@Nullable RuntimeException refused(Throwable failure, String action, String name, String key) {
		return this.refusals.refused(failure, action, name, key);
	}

	/** @see HeldRedisLocks#releaseQuietly */
	void releaseQuietly(String redisKey, String queueKey, String holderPrefix, @Nullable SharedLock shared) {
		this.held.releaseQuietly(redisKey, queueKey, holderPrefix, shared);
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

	/**
	 * How long a waiter pauses before its next attempt when no release is announced: until the holder's lease ends,
	 * at most the engine's longest poll, and at most a third of the waiter's own lease. A hand-over the waiter does
	 * not hear (its announcement lost with a killed subscription) is found by that next attempt, so the lock arrives
	 * with at least two thirds of its lease left, as a renewal leaves it, instead of dead on arrival.
	 * @param remainingTtlMillis the holder's remaining lease, as the attempt's reply gave it
	 * @param waiterLeaseNanos the lease a hand-over would give the waiter
	 */
	long pollNanos(long remainingTtlMillis, long waiterLeaseNanos) {
		// A TTL of -1 (none) or -2 (just gone) says nothing useful: try again soon.
		long ttl = (remainingTtlMillis > 0) ? TimeUnit.MILLISECONDS.toNanos(remainingTtlMillis) : 0;
		return Math.max(TimeUnit.MILLISECONDS.toNanos(1), Math.min(ttl, Math.min(this.maxPollNanos,
				waiterLeaseNanos / 3)));
	}

	/**
	 * @param acquiredAt local time no later than the moment the store granted the lock, from which its lease runs
	 */
	RedisLockHandle newHandle(LockRequest request, String redisKey, String queueKey, String holderPrefix, long token,
			long acquiredAt, @Nullable SharedLock shared) {
		long maxDeadline = (request.maxLease() != null) ? acquiredAt + request.maxLease().toNanos() : Long.MAX_VALUE;
		// The lease Redis was given, in whole milliseconds (RedisAcquisition sends initialLease().toMillis()).
		long grantedLease = TimeUnit.MILLISECONDS.toNanos(request.initialLease().toMillis());
		return new RedisLockHandle(this.held, request.name(), request.key(), redisKey, queueKey, holderPrefix, token,
				acquiredAt, grantedLease, request.lease().toNanos(), request.autoRenew(), maxDeadline, request.mode(),
				shared);
	}

	/** The token floor key of the lock stored under {@code lockKey} (see {@link TokenFloors}). */
	String tokenFloor(String lockKey) {
		return this.floors.of(lockKey);
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

	@Override
	protected EngineLocks<?> engineLocks() {
		return this.locks;
	}

	@Override
	public int waitingCount() {
		return this.waiting.get();
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
		this.held.close();
		this.announcements.close();
		this.scripts.close();
	}

}
