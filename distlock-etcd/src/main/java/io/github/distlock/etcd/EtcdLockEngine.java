package io.github.distlock.etcd;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.IntStream;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.options.GetOption;
import org.jspecify.annotations.Nullable;
import io.github.distlock.LockLostListener;
import io.github.distlock.LockStoreException;
import io.github.distlock.LostLock;
import io.github.distlock.engine.CheckableLockEngine;
import io.github.distlock.engine.HeldLockView;
import io.github.distlock.engine.Leases;
import io.github.distlock.engine.LockEngineStatistics;
import io.github.distlock.engine.LockHandle;
import io.github.distlock.engine.LockRequest;
import io.github.distlock.engine.ObservableLockEngine;
import io.github.distlock.engine.support.LeaseWatchdog;
import io.github.distlock.engine.support.LeasedLockHandle;
import io.github.distlock.engine.support.LostLocks;

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
public final class EtcdLockEngine implements ObservableLockEngine, CheckableLockEngine, AutoCloseable {

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

	/** Locks one confirmation carries at most: etcd's default limit of operations in one transaction. */
	private static final int CONFIRMATION_BATCH = 128;

	/** How long {@link #close()} waits for etcd to revoke the lease. */
	private static final Duration CLOSE_WAIT = Duration.ofSeconds(1);

	private static final Log logger = LogFactory.getLog(EtcdLockEngine.class);

	private final KV kv;

	/** Sends a call again when an attempt gets no answer within an election timeout: its leader may have died. */
	private final CallAttempts attempts;

	private final LockKeys keys;

	private final LockQueue queue;

	private final LostLocks lostLocks;

	private final LockEngineStatistics statistics = new LockEngineStatistics();

	private final StandingRefusal refusal = new StandingRefusal(this.statistics);

	/** Checks the lease's time to live, hands on the losses that etcd's callbacks find, and retries deletions. */
	private final ScheduledExecutorService events;

	private final LeaseKeeper leases;

	private final KeyCleaner cleaner;

	private final Acquirer acquirer;

	private final LeaseWatchdog<EtcdLockHandle> watchdog;

	/** Held locks by key, for the end of the lease and for operators. */
	private final Map<ByteSequence, EtcdLockHandle> held = new ConcurrentHashMap<>();

	private volatile boolean closed;

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
		this.lostLocks = new LostLocks(EtcdLockEngine.class, this.statistics,
				Objects.requireNonNull(lostListener, "lostListener"));
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
		this.watchdog = new LeaseWatchdog<>("distlock-etcd-watchdog", CONFIRMATION_BATCH, this::confirm,
				EtcdFailure::isRefusal, this::lost, this.statistics);
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
		EtcdLockHandle handle = new EtcdLockHandle(this, request.name(), request.key(), granted.ownKey(),
				granted.holder(), granted.lease(), granted.token(), grantedAt, request.initialLease().toNanos(),
				request.lease().toNanos(), request.autoRenew(), maxDeadline);
		this.held.put(handle.ownKey, handle);
		this.watchdog.watch(handle);
		try {
			KeyDeletionWatch watch = this.queue.watchDeletion(handle.ownKey, handle.token() + 1);
			watch.deleted().thenRun(() -> onEventsThread(() -> lost(handle, LostLock.Reason.NOT_OWNED)));
			handle.watchedBy(watch);
		}
		catch (RuntimeException ex) {
			// The watch is a shortcut: the watchdog's confirmations find a deletion anyway.
			logger.debug("Could not watch " + handle + "; its confirmations will notice a deletion", ex);
		}
		if (granted.lease().isEnded()) {
			// The lease ended before the handle was among the held ones: its key went with it.
			lost(handle, LostLock.Reason.NOT_OWNED);
		}
		return handle;
	}

	boolean release(EtcdLockHandle handle) {
		if (!handle.beginRelease()) {
			awaitLossReport(handle);
			return false;
		}
		this.watchdog.unwatch(handle);
		this.held.remove(handle.ownKey, handle);
		handle.stopWatching();
		boolean deleted;
		try {
			// The release deletes the key only if it still has this lock's token, so it is repeated as it is: no other key
			// ever gets that create revision. A repeat that finds the key gone cannot tell an earlier attempt that deleted it
			// (unanswered) from a deletion by someone else. While the instance's lease lives, no one else deletes it but an
			// operator (the engine itself deletes a lock's key only once it reported it lost, and then there is no release);
			// so the repeat counts as the release. Only an operator's deletion during that very release, in the seconds a
			// leader takes to fail over, goes unreported: the owner was giving the lock up then anyway.
			deleted = this.attempts.call((n) -> this.queue.leave(handle.ownKey, handle.token())
				.thenApply((left) -> left || (n > 0 && !instanceLeaseRanOut(handle.lease))), CALL_TIMEOUT.toNanos())
				.get();
			this.refusal.succeeded();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw notReleased(handle, ex);
		}
		catch (ExecutionException ex) {
			throw notReleased(handle, (ex.getCause() != null) ? ex.getCause() : ex);
		}
		if (deleted) {
			handle.markReleased();
			return true;
		}
		handle.reporting.lock();
		try {
			if (handle.markLostAtRelease(LostLock.Reason.NOT_OWNED)) {
				reportLoss(handle, LostLock.Reason.NOT_OWNED);
			}
		}
		finally {
			handle.reporting.unlock();
		}
		return false;
	}

	/** A release that got no answer: the key is deleted in the background, as it would hold the lock otherwise. */
	private LockStoreException notReleased(EtcdLockHandle handle, Throwable cause) {
		handle.markReleased();
		this.cleaner.leave(handle.ownKey, handle.token(), handle.lease);
		EtcdFailure failure = EtcdFailure.of(cause);
		String sentence = failure.describe(this.keys.rootPrefix(), CALL_TIMEOUT);
		if (failure.isRefusal()) {
			this.refusal.refused(sentence);
		}
		return new LockStoreException(handle.name(), handle.key(), failure.code(), "Could not release " + handle
				+ " in etcd: " + sentence + ". It is deleted in the background once etcd answers, and at the latest"
				+ " when the instance's lease ends", new EtcdCallException(sentence, cause));
	}

	/**
	 * A loss found by another thread (the key's watch, the end of the lease) marks the handle lost before it reports
	 * it, under the handle's reporting lock: a caller told "not held" waits for that report, so the answer never
	 * overtakes it.
	 */
	private static void awaitLossReport(EtcdLockHandle handle) {
		if (handle.isLost()) {
			handle.reporting.lock();
			handle.reporting.unlock();
		}
	}

	/**
	 * Asks etcd whether the key is still this acquisition's. When etcd cannot be reached, the answer is whether the
	 * lock is known to live: its lease deadline and the instance's lease both still ahead.
	 */
	boolean verify(EtcdLockHandle handle) {
		if (!handle.isHeld()) {
			awaitLossReport(handle);
			return false;
		}
		Boolean owned = stillOwned(handle);
		if (owned == null) {
			long now = System.nanoTime();
			return handle.isHeld() && !handle.lease.isEnded() && now - handle.leaseDeadlineNanos() < 0
					&& now - handle.lease.aliveUntilNanos() < 0;
		}
		if (owned && !handle.lease.isEnded()) {
			return true;
		}
		lost(handle, LostLock.Reason.NOT_OWNED);
		awaitLossReport(handle);
		return false;
	}

	/**
	 * Moves the lease deadline on after one read that finds the key: the key itself needs nothing, as it lives as
	 * long as the instance's lease. An unreachable etcd extends nothing and loses nothing.
	 */
	boolean extend(EtcdLockHandle handle, Duration ttl) {
		Leases.requireLease(ttl, "ttl");
		if (!handle.isHeld()) {
			awaitLossReport(handle);
			return false;
		}
		long sentAt = System.nanoTime();
		long ttlMillis = handle.ttlMillisFrom(sentAt, ttl.toNanos());
		if (ttlMillis < 1) {
			return false;
		}
		Boolean owned = stillOwned(handle);
		if (owned == null) {
			return false;
		}
		if (!owned || handle.lease.isEnded()) {
			lost(handle, LostLock.Reason.NOT_OWNED);
			awaitLossReport(handle);
			return false;
		}
		// Confirmed after the lease ran out, it extends nothing: the lock is lost at its deadline.
		return handle.extended(sentAt, TimeUnit.MILLISECONDS.toNanos(ttlMillis));
	}

	/** One read of the key: whether it is still this acquisition's, or null when etcd gave no answer in time. */
	private @Nullable Boolean stillOwned(EtcdLockHandle handle) {
		try {
			// A read: repeated as it is.
			return this.attempts.call((n) -> this.queue.stillOwned(handle.ownKey, handle.token()),
					CALL_TIMEOUT.toNanos()).get();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return null;
		}
		catch (ExecutionException | RuntimeException ex) {
			return null;
		}
	}

	/**
	 * The watchdog's renewal: one read-only transaction that finds whether every lock's key is still there. A lock
	 * whose lease has ended counts as not there: its key is gone, or going. The watchdog waits for the answer, so it
	 * waits no longer than the earliest lease deadline among the locks: past it, that lock must be declared lost,
	 * answer or not. Within that, the read is sent again when an attempt gets no answer within an election timeout.
	 */
	private CompletionStage<List<Boolean>> confirm(List<EtcdLockHandle> handles, List<Long> ttlMillis) {
		List<ByteSequence> owns = handles.stream().map((handle) -> handle.ownKey).toList();
		List<Long> tokens = handles.stream().map(EtcdLockHandle::token).toList();
		long patience = LeasedLockHandle.patienceNanos(handles, System.nanoTime(), CALL_TIMEOUT.toNanos());
		try {
			// A read: repeated as it is, within the patience.
			return this.attempts.call((n) -> this.queue.stillOwned(owns, tokens), patience)
				.thenApply((owned) -> IntStream.range(0, handles.size())
					.mapToObj((i) -> owned.get(i) && !handles.get(i).lease.isEnded())
					.toList());
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
	}

	/** The instance's lease ended: etcd deletes (or has deleted) every key on it, so every lock on it is lost. */
	private void leaseEnded(InstanceLease lease) {
		for (EtcdLockHandle handle : this.held.values()) {
			if (handle.lease == lease) {
				lost(handle, LostLock.Reason.NOT_OWNED);
			}
		}
	}

	/**
	 * A loss found by a watch, a confirmation, a check, the lease deadline or the end of the instance's lease:
	 * reported once, and only while the owner has not begun to release. A caller that finds the loss already being
	 * reported by another thread waits for that report. The key is deleted when the lease deadline ran out (it is
	 * still there) so that the next waiter gets the lock; the deletion compares the token, so it never touches
	 * another holder's key.
	 */
	private void lost(EtcdLockHandle handle, LostLock.Reason found) {
		LostLock.Reason reason = (found != LostLock.Reason.LEASE_EXPIRED && instanceLeaseRanOut(handle.lease))
				? LostLock.Reason.NOT_OWNED : found;
		this.watchdog.unwatch(handle);
		this.held.remove(handle.ownKey, handle);
		handle.stopWatching();
		handle.reporting.lock();
		try {
			if (handle.markLost(reason)) {
				// The holder is told before the key goes: its deletion hands the lock to the next waiter, who must not
				// enter while the holder's listeners have not heard (the torture run's OVERLAP_UNREPORTED, on an etcd
				// cluster whose leader died: the next holder entered 51 ms before the listener was called).
				reportLoss(handle, reason);
				if (reason != LostLock.Reason.NOT_OWNED) {
					this.cleaner.leave(handle.ownKey, handle.token(), handle.lease);
				}
			}
		}
		finally {
			handle.reporting.unlock();
		}
	}

	/**
	 * Whether the instance's lease has ended, or run out by this process's clock (no keep-alive answered within its
	 * time to live): etcd then holds none of its keys, whatever else kept a lock from being confirmed (a holder paused
	 * past both, a member that did not answer).
	 */
	private static boolean instanceLeaseRanOut(InstanceLease lease) {
		return lease.isEnded() || System.nanoTime() - lease.aliveUntilNanos() >= 0;
	}

	private void reportLoss(EtcdLockHandle handle, LostLock.Reason reason) {
		if (!this.closed) {
			// A closed engine freed its locks itself: nothing is lost behind its owner's back.
			this.lostLocks.report(handle, reason);
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
	public int heldCount() {
		return this.held.size();
	}

	@Override
	public int waitingCount() {
		return this.acquirer.waitingCount();
	}

	@Override
	public Duration renewalLag() {
		return this.watchdog.renewalLag();
	}

	@Override
	public LockEngineStatistics statistics() {
		return this.statistics;
	}

	@Override
	public List<HeldLockView> heldLocks() {
		long now = System.nanoTime();
		return this.held.values().stream().map((handle) -> handle.view(handle.holder, now)).toList();
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
		this.closed = true;
		this.watchdog.close();
		for (EtcdLockHandle handle : this.held.values()) {
			handle.stopWatching();
		}
		this.leases.close(CLOSE_WAIT);
		this.events.shutdownNow();
	}

}
