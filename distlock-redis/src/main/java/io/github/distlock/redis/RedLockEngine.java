package io.github.distlock.redis;

import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.redisson.api.RedissonClient;

import io.github.distlock.LockAcquisitionException;
import io.github.distlock.LockLostListener;
import io.github.distlock.LockStoreException;
import io.github.distlock.LostLock;
import io.github.distlock.engine.CheckableLockEngine;
import io.github.distlock.engine.ForceReleasableLockEngine;
import io.github.distlock.engine.HeldLockView;
import io.github.distlock.engine.LockEngine;
import io.github.distlock.engine.LockEngineStatistics;
import io.github.distlock.engine.LockHandle;
import io.github.distlock.engine.LockRequest;
import io.github.distlock.engine.InspectableLockEngine;
import io.github.distlock.engine.support.LeasedLockHandle;
import io.github.distlock.engine.support.LostLocks;

/**
 * A {@link LockEngine} over several independent Redis masters, after Redis's Redlock algorithm: a lock is held when a
 * majority of the masters hold it, so it survives the loss of a minority of them, where a single master's failover
 * can lose it.
 * <p>
 * An attempt tries every master at once, each for at most the node timeout ({@link RedLockRound}); it succeeds when a
 * majority granted the lock with time left on the lease (the lease, less the time taken, less the clock drift:
 * {@code 0.01 × lease + 2 ms}). Otherwise it releases what it was granted and, while the caller's wait lasts, tries
 * again after a random delay, so that competing callers that split the masters between them do not collide again.
 * Each master's part is renewed by that master's own {@link RedisLockEngine}; the lock is lost when fewer than a
 * majority of its parts are held ({@link RedLockHandle}).
 * <p>
 * The fencing token is the largest of the majority's tokens, written back as the token floor on each of them before
 * the caller gets it: any later majority shares a master with this one, whose floor makes its token larger.
 * Exclusive locks only.
 */
public final class RedLockEngine
		implements InspectableLockEngine, CheckableLockEngine, ForceReleasableLockEngine, AutoCloseable {

	private static final Log logger = LogFactory.getLog(RedLockEngine.class);

	/** How long one master's answer is waited for, by default: far below any lease, so a dead master costs little. */
	public static final Duration DEFAULT_NODE_TIMEOUT = Duration.ofMillis(200);

	/** The longest random pause between attempts, by default. */
	public static final Duration DEFAULT_RETRY_DELAY = Duration.ofMillis(50);

	private final RedLockMasters masters;

	private final long retryDelayNanos;

	private final LostLocks lostLocks;

	private final LockEngineStatistics statistics = new LockEngineStatistics();

	private final Set<RedLockHandle> held = ConcurrentHashMap.newKeySet();

	private final AtomicInteger waiting = new AtomicInteger();

	private final String engineId;

	private final AtomicLong acquisitions = new AtomicLong();

	/**
	 * @param masters one client per master, each of a single Redis server that is no replica of another: at least 3,
	 * best an odd number; the engine does not close them
	 * @param keyPrefix the prefix of every key and channel the engine uses
	 * @param nodeTimeout how long one master's answer is waited for
	 * @param retryDelay the longest random pause between attempts
	 * @param lostListener told of every lost lock
	 */
	public RedLockEngine(List<RedissonClient> masters, String keyPrefix, Duration nodeTimeout, Duration retryDelay,
			LockLostListener lostListener) {
		Objects.requireNonNull(masters, "masters");
		if (masters.size() < 3) {
			throw new IllegalArgumentException("RedLock needs at least 3 independent Redis masters (best an odd "
					+ "number), got " + masters.size() + ": with fewer, losing one master loses the majority");
		}
		for (RedissonClient client : masters) {
			if (!client.getConfig().isSingleConfig()) {
				throw new IllegalArgumentException("Each RedLock master must be a single Redis server, not a Cluster "
						+ "or a Sentinel-managed master: the masters are independent, and each holds its part alone");
			}
		}
		requirePositive(nodeTimeout, "nodeTimeout");
		requirePositive(retryDelay, "retryDelay");
		this.retryDelayNanos = retryDelay.toNanos();
		this.lostLocks = new LostLocks(RedLockEngine.class, this.statistics,
				Objects.requireNonNull(lostListener, "lostListener"));
		List<RedisLockEngine> engines = new ArrayList<>();
		for (RedissonClient client : masters) {
			engines.add(RedisLockEngine.redLockPart(client, keyPrefix, nodeTimeout, this.statistics));
		}
		this.masters = new RedLockMasters(engines, nodeTimeout);
		byte[] id = new byte[8];
		new SecureRandom().nextBytes(id);
		this.engineId = HexFormat.of().formatHex(id);
	}

	private static void requirePositive(Duration duration, String what) {
		Objects.requireNonNull(duration, what);
		if (duration.isNegative() || duration.isZero()) {
			throw new IllegalArgumentException(what + " must be positive: " + duration);
		}
	}

	/**
	 * Tries every master at once until a majority grants the lock, or the wait is over.
	 * @throws LockAcquisitionException when the wait ran out; its cause, when not null, says which masters could not
	 * be reached for a majority
	 * @throws LockStoreException when too many masters refuse for a majority (a missing permission, say)
	 */
	@Override
	public LockHandle acquire(LockRequest request) throws InterruptedException {
		if (!request.isExclusive()) {
			throw new UnsupportedOperationException("The RedLock engine has exclusive locks only: no read/write locks "
					+ "and no permits");
		}
		long start = System.nanoTime();
		long deadline = start + request.waitTime().toNanos();
		long driftNanos = LeasedLockHandle.allowanceNanos(request.initialLease().toNanos());
		this.waiting.incrementAndGet();
		try {
			while (true) {
				RedLockRound round = new RedLockRound(this, this.masters, request, driftNanos);
				RedLockHandle lock = round.run();
				if (lock != null) {
					this.held.add(lock);
					if (!lock.isHeld()) {
						// Lost already, between the hand-out and here: reported, and forgotten before it was added.
						this.held.remove(lock);
					}
					return lock;
				}
				LockStoreException refusal = round.refusal();
				if (refusal != null) {
					// Counted already, once per refusing master, by the masters' engines.
					throw refusal;
				}
				long left = deadline - System.nanoTime();
				if (left <= 0) {
					throw new LockAcquisitionException(request.name(), request.key(),
							Duration.ofNanos(System.nanoTime() - start), round.unreachable());
				}
				long pause = ThreadLocalRandom.current().nextLong(this.retryDelayNanos / 2, this.retryDelayNanos + 1);
				TimeUnit.NANOSECONDS.sleep(Math.min(left, pause));
			}
		}
		finally {
			this.waiting.decrementAndGet();
		}
	}

	/**
	 * @param parts the parts granted, one per master, whose deadlines leave out the allowance for clock drift
	 */
	RedLockHandle newHandle(LockRequest request, long token, long acquiredAtNanos, List<LeasedLockHandle> parts) {
		String holder = this.engineId + ":" + this.acquisitions.incrementAndGet();
		return new RedLockHandle(this, request.name(), request.key(), token, holder, acquiredAtNanos,
				this.masters.majority(), parts);
	}

	RedLockMasters masters() {
		return this.masters;
	}

	int masterCount() {
		return this.masters.size();
	}

	/** The owner is releasing this lock. */
	void forget(RedLockHandle lock) {
		this.held.remove(lock);
	}

	/** Reports a lock found lost (once, as its handle decides), before its parts are let go. */
	void report(RedLockHandle lock, LostLock.Reason reason) {
		this.held.remove(lock);
		this.lostLocks.report(lock, reason, "fewer than " + this.masters.majority() + " of the " + this.masters.size()
				+ " Redis masters hold it");
	}

	/** Lets go of a lost lock's parts still held on some masters, so they do not block others until they expire. */
	void letGoOfParts(RedLockHandle lock) {
		// Runs in a part's loss actions (see RedLockHandle.heldParts()): each part's state is read, not asked for.
		for (LeasedLockHandle part : lock.parts()) {
			if (part.isHeld()) {
				this.masters.runLater(() -> {
					try {
						part.release();
					}
					catch (RuntimeException ex) {
						// Unreachable: the part expires with its lease.
					}
				});
			}
		}
	}

	@Override
	public int heldCount() {
		return this.held.size();
	}

	@Override
	public int waitingCount() {
		return this.waiting.get();
	}

	/** The most overdue renewal of any master's parts. */
	@Override
	public Duration renewalLag() {
		return this.masters.all().stream().map(RedisLockEngine::renewalLag).max(Duration::compareTo)
			.orElse(Duration.ZERO);
	}

	/** Losses of whole locks; renewals, their round trips and refusals of every master's parts. */
	@Override
	public LockEngineStatistics statistics() {
		return this.statistics;
	}

	@Override
	public List<HeldLockView> heldLocks() {
		long now = System.nanoTime();
		return this.held.stream().filter(RedLockHandle::isHeld).map((lock) -> lock.view(now)).toList();
	}

	/**
	 * Every master at once, each bounded by the timeout.
	 * @return the time a majority took to answer
	 * @throws RedLockQuorumException when fewer than a majority answered, naming each that did not
	 */
	@Override
	public Duration ping(Duration timeout) {
		List<RedLockMasters.Answer<Duration>> answers = this.masters.askAll(this.masters.size(),
				(index) -> this.masters.get(index).ping(timeout));
		List<Duration> times = new ArrayList<>();
		List<String> failed = new ArrayList<>();
		for (int i = 0; i < answers.size(); i++) {
			RedLockMasters.Answer<Duration> answer = answers.get(i);
			if (answer.failure() == null) {
				times.add(answer.value());
			}
			else {
				failed.add("master #" + (i + 1) + ": " + this.masters.get(i).describeFailure(answer.failure(), timeout));
			}
		}
		if (times.size() < this.masters.majority()) {
			throw new RedLockQuorumException("only " + times.size() + " of " + this.masters.size()
					+ " Redis masters answered, and RedLock needs " + this.masters.majority() + ": "
					+ String.join("; ", failed), times.size(), this.masters.majority());
		}
		if (!failed.isEmpty()) {
			logger.debug("RedLock masters not answering a health check: " + String.join("; ", failed));
		}
		times.sort(Duration::compareTo);
		return times.get(this.masters.majority() - 1);
	}

	@Override
	public String describeFailure(Throwable failure, Duration timeout) {
		if (failure instanceof RedLockQuorumException quorum) {
			return "RedLock " + quorum.getMessage();
		}
		return this.masters.get(0).describeFailure(failure, timeout);
	}

	/** The masters' standing refusals, when so many refuse that no majority is left. */
	@Override
	public @Nullable String standingRefusal() {
		List<String> refusals = new ArrayList<>();
		for (int i = 0; i < this.masters.size(); i++) {
			String refusal = this.masters.get(i).standingRefusal();
			if (refusal != null) {
				refusals.add("master #" + (i + 1) + ": " + refusal);
			}
		}
		return (this.masters.size() - refusals.size() < this.masters.majority()) ? String.join("; ", refusals) : null;
	}

	/** Each master's eviction policy, in order, and a warning naming every master that can evict held locks. */
	@Override
	public Map<String, Object> storeDetails(Duration timeout) {
		List<RedLockMasters.Answer<Map<String, Object>>> answers = this.masters.askAll(this.masters.size(),
				(index) -> this.masters.get(index).storeDetails(timeout));
		List<Object> policies = new ArrayList<>();
		List<String> warnings = new ArrayList<>();
		for (int i = 0; i < answers.size(); i++) {
			Map<String, Object> answered = answers.get(i).value();
			Map<String, Object> details = (answered != null) ? answered : Map.of();
			policies.add(details.getOrDefault("evictionPolicy", "unknown"));
			if (details.get("warning") != null) {
				warnings.add("master #" + (i + 1) + ": " + details.get("warning"));
			}
		}
		Map<String, Object> details = new LinkedHashMap<>();
		details.put("masters", this.masters.size());
		details.put("evictionPolicy", policies);
		if (!warnings.isEmpty()) {
			details.put("warning", String.join("; ", warnings));
		}
		return details;
	}

	/** Removes the lock on every master, whoever holds it. */
	@Override
	public boolean forceRelease(String name, String key) {
		return this.masters.askAll(this.masters.size(), (index) -> this.masters.get(index).forceRelease(name, key))
			.stream()
			.anyMatch((answer) -> answer.is(Boolean.TRUE));
	}

	@Override
	public void close() {
		this.masters.close();
	}

}
