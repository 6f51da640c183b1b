package io.github.distlock.etcd;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import io.etcd.jetcd.Client;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.options.GetOption;
import org.jspecify.annotations.Nullable;
import io.github.distlock.LockLostListener;
import io.github.distlock.LostLock;
import io.github.distlock.engine.CheckableLockEngine;
import io.github.distlock.engine.LockEngineStatistics;
import io.github.distlock.engine.LockHandle;
import io.github.distlock.engine.LockRequest;
import io.github.distlock.engine.support.EngineLocks;
import io.github.distlock.engine.support.LeasedLockEngine;
import io.github.distlock.engine.support.LeaseWatchdog;

/**
 * A lock engine on etcd (v3 API), through jetcd.
 * <p>
 * <b>Locks.</b> The recipe of etcd's own {@code concurrency} mutex ({@link LockQueue}): each acquisition creates a key
 * of its own under {@code <root>/<name>/<key>/} (name and key escaped by {@link LockKeys}), in one transaction that
 * also reads which key is just ahead of it; the key with the lowest create revision holds the lock, and each waiter
 * watches only the key just ahead of it, so waiters are served in the order they came. Ownership is the key, so every
 * acquire is a new holder (no reentrancy) and any thread may release. A release deletes the key only if it still has
 * the create revision it was given, so it never deletes another holder's lock. A waiter that gives up or is interrupted
 * deletes its key; a wait time of zero looks once. Exclusive locks only: no read/write locks, no permits
 * ({@link #supports}).
 * <p>
 * <b>Fencing token.</b> The create revision of the lock's key: etcd's revision grows with every write to the cluster,
 * so a later holder of any lock always has a larger token.
 * <p>
 * <b>Writes.</b> An uncontended lock and unlock are two writes: the joining transaction and the deleting one (each one
 * revision). So is a try that finds the lock taken (it joins, and leaves). Renewal writes nothing.
 * <p>
 * <b>The instance's lease.</b> The engine takes one etcd lease (of the time to live given to the constructor) when its
 * first lock needs one, and attaches every key it creates to it. jetcd's keep-alive keeps it alive: one keep-alive per
 * instance about every third of its time to live (jetcd sends on a half-second round), however many locks the instance
 * holds. If the instance dies, etcd ends the lease within its time to live, and deletes every key of the instance with
 * it: that time to live bounds how long a crashed instance keeps its locks. If the lease ends while the instance lives
 * (its keep-alives go unanswered for its time to live, or someone revokes it), every lock held on it is lost
 * ({@link LostLock.Reason#NOT_OWNED}: etcd holds no lock for these holders any more), the engine revokes it in case
 * etcd still has it, and the next lock takes a new lease ({@link LeaseKeeper}).
 * <p>
 * <b>What {@link LockRequest#lease()} means here.</b> etcd keeps a key as long as the instance's lease lives, with no
 * time to live of its own; the request's lease is the engine's promise on top of that, as in the ZooKeeper engine: a
 * lock lives at most its lease past its last confirmation, where a confirmation (the "renewal", every third of the
 * lease, by the shared {@link LeaseWatchdog}) is a read that finds the key still there. All held locks are confirmed in
 * one read-only transaction per round; nothing is written. So a lock not renewed ({@code autoRenew = false}) ends with
 * its lease and a renewed one at {@code maxLease}: the engine then deletes its key and reports it lost
 * ({@link LostLock.Reason#LEASE_EXPIRED}). A lock whose confirmations fail (etcd unreachable) until its lease runs out
 * is reported {@link LostLock.Reason#STORE_UNREACHABLE} and its key deleted once etcd answers. Whatever the request's
 * lease, the end of the instance's lease ends the lock. {@link LockHandle#extend} moves the lease deadline after one
 * read that finds the key. {@link LockHandle#leaseDeadlineNanos()} is the engine's deadline: it does not know of the
 * instance's lease, which etcd may end sooner when keep-alives fail (reported as above, within about one round trip of
 * etcd's deadline, as a keep-alive's answer is timed when it arrives).
 * <p>
 * <b>Losses.</b> Besides the end of the lease and the lease deadline, a key deleted from outside is found by a watch on
 * the key itself (and at the latest by the next confirmation) and reported once, {@link LostLock.Reason#NOT_OWNED}.
 * <p>
 * <b>The client.</b> The engine does not own it: the caller builds it, and closes it after {@link #close()}. jetcd's
 * default makes calls wait for a connection ({@code waitForReady}): an unreachable etcd then shows only as no answer in
 * time. A client built with {@code waitForReady(false)} fails such calls at once, and {@link #describeFailure} names
 * the cause.
 * <p>
 * <b>A leader that dies.</b> A member holds a call meant for a dead leader until its own request timeout, longer than
 * {@link #CALL_TIMEOUT}. So a call with no answer within the cluster's election timeout (given to the constructor;
 * etcd's default otherwise) is sent again, and reaches the new leader about an election after the old one died
 * ({@link CallAttempts}). Reads, releases and the deletions left to the background are sent again as they are; a
 * join is sent again as a new key, which deletes and bars the keys of the joins before it. Within a lock's lease
 * deadline: the deadline still decides a loss, answer or not. The grant of the instance's lease is sent again too: a
 * grant applied late makes a lease no key is attached to and nobody keeps alive, which expires on its own.
 */
public final class EtcdLockEngine extends LeasedLockEngine implements CheckableLockEngine, AutoCloseable {

	/** The default root of every lock's key. */
	public static final String DEFAULT_ROOT = "/distlock";

	/** The default time to live of the instance's lease: how long a crashed instance keeps its locks at most. */
	public static final Duration DEFAULT_LEASE_TTL = Duration.ofSeconds(10);

	/** How long one call to etcd may take before it counts as failed (beyond a caller's wait time). */
	public static final Duration CALL_TIMEOUT = Duration.ofSeconds(5);

	/**
	 * etcd's default election timeout ({@code --election-timeout}): how long one attempt of a call may take before
	 * it is sent again, unless the engine is told the cluster's own.
	 */
	public static final Duration DEFAULT_ELECTION_TIMEOUT = Duration.ofSeconds(1);

	/** How long {@link #close()} waits for etcd to revoke the lease. */
	private static final Duration CLOSE_WAIT = Duration.ofSeconds(1);

	private static final Log logger = LogFactory.getLog(EtcdLockEngine.class);

	private final KV kv;

	/** Sends a call again when an attempt gets no answer within an election timeout: its leader may have died. */
	private final CallAttempts attempts;

	private final LockKeys keys;

	private final LockQueue queue;

	private final LockEngineStatistics statistics = new LockEngineStatistics();

	private final StandingRefusal refusal = new StandingRefusal(this.statistics);

	/** Checks the lease's time to live, hands on the losses that etcd's callbacks find, and retries deletions. */
	private final ScheduledExecutorService events;

	private final LeaseKeeper leases;

	private final KeyCleaner cleaner;

	private final Acquirer acquirer;

	private final HeldKeys heldKeys;

	private final EngineLocks<EtcdLockHandle> held;

	/**
	 * An engine for a cluster with etcd's default election timeout ({@link #DEFAULT_ELECTION_TIMEOUT}).
	 * @param client a jetcd client; the engine uses its KV, lease and watch clients, and does not close it
	 * @param root the prefix under which every lock's key lives, such as {@link #DEFAULT_ROOT}
	 * @param leaseTtl the time to live of the instance's lease, in whole seconds (at least one; etcd may raise it to
	 * its minimum): how long a crashed instance keeps its locks at most
	 * @param lostListener told of every lock lost while held
	 */
	public EtcdLockEngine(Client client, String root, Duration leaseTtl, LockLostListener lostListener) {
		this(client, root, leaseTtl, DEFAULT_ELECTION_TIMEOUT, lostListener);
	}

	/**
	 * @param client a jetcd client; the engine uses its KV, lease and watch clients, and does not close it
	 * @param root the prefix under which every lock's key lives, such as {@link #DEFAULT_ROOT}
	 * @param leaseTtl the time to live of the instance's lease, in whole seconds (at least one; etcd may raise it to
	 * its minimum): how long a crashed instance keeps its locks at most
	 * @param electionTimeout the cluster's election timeout ({@code --election-timeout}): a call with no answer
	 * within it is sent again, as its leader may have died and the survivors elect a new one in about that time
	 * (at least 100 ms)
	 * @param lostListener told of every lock lost while held
	 */
	public EtcdLockEngine(Client client, String root, Duration leaseTtl, Duration electionTimeout,
			LockLostListener lostListener) {
		Objects.requireNonNull(client, "client");
		Objects.requireNonNull(leaseTtl, "leaseTtl");
		Objects.requireNonNull(electionTimeout, "electionTimeout");
		if (leaseTtl.isNegative() || leaseTtl.isZero()) {
			throw new IllegalArgumentException("leaseTtl must be positive: " + leaseTtl);
		}
		if (electionTimeout.isNegative() || electionTimeout.isZero()) {
			throw new IllegalArgumentException("electionTimeout must be positive: " + electionTimeout);
		}
		this.attempts = new CallAttempts(electionTimeout);
		Objects.requireNonNull(lostListener, "lostListener");
		this.kv = client.getKVClient();
		this.keys = new LockKeys(root);
		this.queue = new LockQueue(this.kv, client.getWatchClient(), this.keys);
		this.events = newEventsThread();
		long ttlSeconds = Math.max(1, (leaseTtl.toMillis() + 999) / 1000);
		this.leases = new LeaseKeeper(client.getLeaseClient(), ttlSeconds, this.events, this::leaseEnded,
				this.attempts);
		this.cleaner = new KeyCleaner(this.queue, this.events, CALL_TIMEOUT, this.attempts);
		this.acquirer = new Acquirer(this.queue, this.keys, this.leases, this.cleaner, this.refusal, CALL_TIMEOUT,
				this.attempts);
		this.heldKeys = new HeldKeys(this.queue, this.attempts, this.refusal, this.cleaner, this.keys.rootPrefix(),
				lostListener, this.statistics);
		this.held = this.heldKeys.locks();
	}

	private static ScheduledExecutorService newEventsThread() {
		ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, (task) -> {
			Thread thread = new Thread(task, "distlock-etcd-events");
			thread.setDaemon(true);
			return thread;
		});
		executor.setRemoveOnCancelPolicy(true);
		return executor;
	}

	@Override
	public LockHandle acquire(LockRequest request) throws InterruptedException {
		if (!supports(request.mode(), request.permits() > 0)) {
			throw new UnsupportedOperationException("The etcd lock engine has exclusive locks only, not "
					+ ((request.permits() > 0) ? "permits" : "mode = " + request.mode()) + " (lock '" + request.name()
					+ "'); use the Redis engine for read/write locks and permits");
		}
		return holding(request, this.acquirer.acquire(request));
	}

	/**
	 * Makes a handle for a key that is first in its queue, watched so that a deletion from outside is a loss at once
	 * rather than at the next confirmation.
	 */
	private EtcdLockHandle holding(LockRequest request, Acquirer.Granted granted) {
		long grantedAt = granted.grantedAtNanos();
		long maxDeadline = (request.maxLease() != null) ? grantedAt + request.maxLease().toNanos() : Long.MAX_VALUE;
		EtcdLockHandle handle = new EtcdLockHandle(this.heldKeys, request.name(), request.key(), granted.ownKey(),
				granted.holder(), granted.lease(), granted.token(), grantedAt, request.initialLease().toNanos(),
				request.lease().toNanos(), request.autoRenew(), maxDeadline);
		this.held.hold(handle);
		try {
			KeyDeletionWatch watch = this.queue.watchDeletion(handle.ownKey, handle.token() + 1);
			watch.deleted()
				.thenRun(() -> onEventsThread(() -> this.heldKeys.lost(handle, LostLock.Reason.NOT_OWNED)));
			handle.watchedBy(watch);
		}
		catch (RuntimeException ex) {
			// The watch is a shortcut: the watchdog's confirmations find a deletion anyway.
			logger.debug("Could not watch " + handle + "; its confirmations will notice a deletion", ex);
		}
		if (granted.lease().isEnded()) {
			// The lease ended before the handle was among the held ones: its key went with it.
			this.heldKeys.lost(handle, LostLock.Reason.NOT_OWNED);
		}
		return handle;
	}

	/** The instance's lease ended: etcd deletes (or has deleted) every key on it, so every lock on it is lost. */
	private void leaseEnded(InstanceLease lease) {
		for (EtcdLockHandle handle : this.held.all()) {
			if (handle.lease == lease) {
				this.heldKeys.lost(handle, LostLock.Reason.NOT_OWNED);
			}
		}
	}

	private void onEventsThread(Runnable task) {
		try {
			this.events.execute(task);
		}
		catch (RejectedExecutionException ex) {
			// The engine is closed: nothing is reported any more.
		}
	}

	@Override
	protected EngineLocks<?> engineLocks() {
		return this.held;
	}

	@Override
	public int waitingCount() {
		return this.acquirer.waitingCount();
	}

	/**
	 * One linearizable read (a count of the keys at the root prefix, which holds no lock), bounded by the timeout:
	 * it needs a connection, a leader with its quorum, and permission to read the lock keys.
	 * @throws IllegalStateException with jetcd's error as its cause, if it failed
	 */
	@Override
	public Duration ping(Duration timeout) {
		long start = System.nanoTime();
		try {
			this.kv.get(LockKeys.bytes(this.keys.rootPrefix()), GetOption.builder().withCountOnly(true).build())
				.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while reading etcd", ex);
		}
		catch (ExecutionException ex) {
			throw new IllegalStateException("etcd could not be read", (ex.getCause() != null) ? ex.getCause() : ex);
		}
		catch (TimeoutException ex) {
			throw new IllegalStateException("etcd did not answer within " + timeout.toMillis() + " ms", ex);
		}
		return Duration.ofNanos(System.nanoTime() - start);
	}

	@Override
	public String describeFailure(Throwable failure, Duration timeout) {
		return EtcdFailure.of(failure).describe(this.keys.rootPrefix(), timeout);
	}

	@Override
	public @Nullable String standingRefusal() {
		String sentence = this.refusal.sentence();
		return (sentence != null) ? "etcd refuses distlock's lock calls: " + sentence : null;
	}

	/** Where the locks live and the instance's lease, for health details. */
	@Override
	public Map<String, Object> storeDetails(Duration timeout) {
		Map<String, Object> details = new LinkedHashMap<>();
		details.put("root", this.keys.rootPrefix());
		details.put("leaseTtlSeconds", this.leases.ttlSeconds());
		InstanceLease lease = this.leases.currentIfAlive();
		details.put("lease", (lease != null) ? Long.toHexString(lease.id()) : "none");
		return details;
	}

	/**
	 * Stops confirming and watching, and revokes the instance's lease (waiting at most a second for etcd): every lock
	 * the engine still holds is freed at once, without a loss report, as when a ZooKeeper client closes its session.
	 * Should etcd not answer, the lease expires with its time to live. The caller closes the client.
	 */
	@Override
	public void close() {
		List<EtcdLockHandle> stillHeld = this.held.all();
		this.heldKeys.close();
		for (EtcdLockHandle handle : stillHeld) {
			handle.stopWatching();
		}
		this.leases.close(CLOSE_WAIT);
		this.events.shutdownNow();
	}

}
