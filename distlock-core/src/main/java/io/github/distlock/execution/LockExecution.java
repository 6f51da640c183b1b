package io.github.distlock.execution;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;
import org.springframework.util.ClassUtils;

import io.github.distlock.LockAcquisitionException;
import io.github.distlock.LockLostException;
import io.github.distlock.LockMode;
import io.github.distlock.LockStoreException;
import io.github.distlock.LockUpgradeException;
import io.github.distlock.LostLock;
import io.github.distlock.OnLost;
import io.github.distlock.engine.LockEngine;
import io.github.distlock.engine.LockHandle;
import io.github.distlock.engine.LockRequest;
import io.github.distlock.execution.HeldLocks.HeldLock;

/**
 * Runs work under a lock: enters the lock when this thread already holds it here, else acquires it; releases it
 * when the outermost work for that lock is done (or when the transaction that work joined completes); turns a lock
 * lost on the way into {@link LockLostException} unless the work chose {@link OnLost#IGNORE}; observes waiting
 * and holding.
 * <p>
 * Knows no {@link java.lang.reflect.Method}: the interceptor hands it an annotated method's parsed lock and key, the
 * {@link io.github.distlock.DistributedLockTemplate} a caller's spec, so both behave alike by construction. One
 * instance is one lock holder: locks are re-entered only through the instance that took them, which is why the
 * interceptor and the template of an application share one.
 */
public final class LockExecution {

	private static final Log logger = LogFactory.getLog(LockExecution.class);

	private static final boolean TRANSACTIONS_PRESENT = ClassUtils.isPresent(
			"org.springframework.transaction.support.TransactionSynchronizationManager",
			LockExecution.class.getClassLoader());

	private final Supplier<LockEngine> engine;

	/** Null when Spring's transaction support is not on the class path. */
	private final @Nullable TransactionBoundRelease transactionBoundRelease;

	private final LockObservations observations;

	/**
	 * @param engine supplies the engine on first use, so creating the execution does not connect to the store
	 * @param observationRegistry supplies the registry that waiting and holding are observed with
	 */
	public LockExecution(Supplier<LockEngine> engine, Supplier<ObservationRegistry> observationRegistry) {
		this.engine = engine;
		this.observations = new LockObservations(observationRegistry);
		this.transactionBoundRelease = TRANSACTIONS_PRESENT ? new TransactionBoundRelease() : null;
	}

	/**
	 * The innermost lock the current thread holds through any lock execution, or null. Backs
	 * {@link io.github.distlock.LockContext}.
	 */
	public static @Nullable LockHandle currentHandle() {
		HeldLocks locks = HeldLocks.peek();
		HeldLock held = (locks != null) ? locks.innermost() : null;
		return (held != null) ? held.handle : null;
	}

	/**
	 * Every lock the current thread holds through any lock execution (for a call whose key names several locks, each
	 * of them), including those whose release waits for a transaction; empty when it holds none.
	 */
	public static List<LockHandle> currentHandles() {
		HeldLocks locks = HeldLocks.peek();
		return (locks != null) ? locks.all().stream().map((held) -> held.handle).toList() : List.of();
	}

	/**
	 * Whether the current thread holds the lock through this execution, so that a call for it would enter it
	 * rather than acquire it; true also while its release waits for a transaction the thread is still in.
	 */
	public boolean isHeldByCurrentThread(String name, String key) {
		HeldLocks heldLocks = HeldLocks.peek();
		return heldLocks != null && heldLocks.find(this, name, key) != null;
	}

	/** As {@link #isHeldByCurrentThread(String, String)}, for the lock the request asks for in its mode. */
	public boolean isHeldByCurrentThread(LockRequest request) {
		return heldByCurrentThread(request) != null;
	}

	/** The lock the current thread holds through this execution for the request's lock, or null. */
	@Nullable HeldLock heldByCurrentThread(LockRequest request) {
		HeldLocks heldLocks = HeldLocks.peek();
		return (heldLocks != null) ? heldLocks.find(this, HeldLocks.identity(request), request.key()) : null;
	}

	/**
	 * Acquires the lock for a holder that is not a thread (a reactive subscription), waiting up to the request's
	 * wait time on the calling thread.
	 * @return the lock with one claim, which the holder lets go of ({@link #letGo}) when its work ends
	 */
	HeldLock acquireDetached(LockRequest request, OnLost onLost) {
		LockHandle handle = acquire(request, onLost);
		return HeldLocks.detached(this, handle, onLost, this.observations.startHeld(request.name()));
	}

	/**
	 * Runs work on this thread inside a lock held elsewhere, so that the work sees it ({@link #currentHandle()}) and
	 * its nested calls for the same lock enter it rather than wait for it. The thread takes its own claim while the
	 * work runs; if the lock has been let go of meanwhile, the work runs outside it.
	 */
	@Nullable Object runInside(HeldLock held, Work work) throws Throwable {
		HeldLocks heldLocks = HeldLocks.peek();
		HeldLock view = (heldLocks != null) ? heldLocks.find(this, HeldLocks.identity(held.handle), held.handle.key())
				: null;
		if (heldLocks == null || view == null) {
			if (!held.tryClaim()) {
				return work.run();
			}
			heldLocks = HeldLocks.current();
			view = heldLocks.borrow(held);
		}
		HeldLock outer = heldLocks.enter(view);
		try {
			return work.run();
		}
		finally {
			leave(heldLocks, view, outer);
		}
	}

	/**
	 * Ends a thread's stay inside a lock it entered with {@link HeldLocks#borrow}: when its holds end, its claim is
	 * let go; the lock's holder decides when it is released.
	 */
	static void leave(HeldLocks heldLocks, HeldLock view, @Nullable HeldLock outer) {
		if (heldLocks.exit(view, outer)) {
			((LockExecution) view.scope()).threadDone(view);
		}
	}

	/** Work to run under a lock, returning a plain result. */
	@FunctionalInterface
	public interface Work {

		@Nullable Object run() throws Throwable;

	}

	/**
	 * Runs the work under the lock and releases the lock when it returns or throws (or, inside a transaction the
	 * work joined, when that completes).
	 * @return what the work returned
	 * @throws LockAcquisitionException if the lock was not acquired
	 * @throws LockLostException if the lock was lost while the work ran, unless {@code onLost} is
	 * {@link OnLost#IGNORE}; the work's own exception instead, carrying the loss as suppressed, if it threw one
	 */
	public @Nullable Object run(LockRequest request, OnLost onLost, Work work) throws Throwable {
		EnteredLock entered = enter(request, onLost);
		Object result;
		try {
			result = work.run();
		}
		catch (Throwable ex) {
			throw entered.exitFailed(ex);
		}
		entered.exit();
		entered.throwIfLost();
		return result;
	}

	/** Work to run under a lock that returns a stage, whose completion ends the work. */
	@FunctionalInterface
	public interface StageWork<T extends @Nullable Object> {

		@Nullable CompletionStage<T> start() throws Throwable;

	}

	/**
	 * Starts the work under the lock and keeps the lock until the stage the work returns completes, normally or
	 * exceptionally, on whichever thread completes it; the watchdog renews it until then. The calling thread leaves
	 * the lock as soon as the work has returned its stage, so its next call for the same lock waits for this one
	 * like any other holder's.
	 * @return a stage that completes as the work's stage does, once the lock has been released (or its release
	 * left to the transaction the call joined); with {@link LockLostException} if the lock was lost meanwhile,
	 * unless {@code onLost} is {@link OnLost#IGNORE}. Null when the work returned null, released at once
	 * @throws LockAcquisitionException if the lock was not acquired; the work did not start
	 * @throws Throwable what the work threw before returning its stage; the lock is released at once
	 */
	public <T extends @Nullable Object> @Nullable CompletableFuture<T> runStage(LockRequest request, OnLost onLost,
			StageWork<T> work) throws Throwable {
		EnteredLock entered = enter(request, onLost);
		CompletionStage<T> stage;
		try {
			stage = work.start();
		}
		catch (Throwable ex) {
			throw entered.exitFailed(ex);
		}
		if (stage == null) {
			entered.exit();
			entered.throwIfLost();
			return null;
		}
		// The stage's claim is taken before the thread lets go of its own, so the lock stays held in between.
		entered.held.claims.incrementAndGet();
		entered.exit();
		return LockedStage.watch(this, entered.held, onLost, stage);
	}

	/**
	 * Enters the lock for a call on this thread: the one it already holds here, or a new acquisition. Nothing is left
	 * on the thread when this throws.
	 */
	EnteredLock enter(LockRequest request, OnLost onLost) {
		HeldLocks heldLocks = HeldLocks.peek();
		HeldLock held = (heldLocks != null) ? heldLocks.find(this, HeldLocks.identity(request), request.key()) : null;
		if (heldLocks != null && held != null) {
			refuseUpgrade(held, request, "the nested call");
			if (held.handle.isLost() && onLost != OnLost.IGNORE) {
				// Entering a lock already lost would run this call unprotected from its first line.
				throw lostException(held.handle);
			}
		}
		else {
			LockHandle handle = acquire(request, onLost);
			// Only now: a thread that failed to acquire must not be left with an empty HeldLocks.
			heldLocks = HeldLocks.current();
			held = heldLocks.add(this, handle, onLost, this.observations.startHeld(request.name()));
			if (TRANSACTIONS_PRESENT) {
				LockOwnershipCheck.guardCurrentTransaction(held);
			}
		}
		LossInterruption interruption = (onLost == OnLost.INTERRUPT) ? LossInterruption.arm(held.handle) : null;
		HeldLock outer = heldLocks.enter(held);
		return new EnteredLock(this, heldLocks, held, outer, interruption, onLost);
	}

	/**
	 * Refuses a write lock asked for inside the read lock of the same name and key: the writer would wait for every
	 * reader to leave, itself included.
	 */
	static void refuseUpgrade(HeldLock held, LockRequest request, String method) {
		if (held.handle.mode() == LockMode.READ && request.mode() == LockMode.WRITE) {
			throw new LockUpgradeException(request.name(), request.key(), method);
		}
	}

	/**
	 * Takes every lock of a key set's call in one step where the engine can, all or none, without waiting; the
	 * call's acquisitions on this thread then take them up one by one ({@link PreparedHandles}).
	 * @return what to close once the call has entered its locks (or failed), or null when the locks were not taken
	 * together: the call then takes them one by one
	 */
	public @Nullable PreparedHandles acquireTogether(List<LockRequest> requests) {
		LockEngine engine = this.engine.get();
		List<LockHandle> handles = engine.tryAcquireAll(requests);
		return (handles != null) ? PreparedHandles.offer(this, handles) : null;
	}

	/** Releases locks taken together that the call did not enter. */
	public void releaseUnused(PreparedHandles prepared) {
		for (LockHandle handle : prepared.close()) {
			try {
				handle.release();
			}
			catch (RuntimeException ex) {
				logger.warn("The release of " + handle + " was not confirmed (" + ex.getClass().getSimpleName()
						+ "); the lock stays until its lease runs out");
			}
		}
	}

	/**
	 * @throws LockLostException if the lock was granted after its lease had run out by the holder's clock, unless
	 * {@code onLost} is {@link OnLost#IGNORE}; the work must not start then
	 */
	private LockHandle acquire(LockRequest request, OnLost onLost) {
		LockHandle handle = acquireObserved(request);
		refuseIfArrivedLost(handle, onLost);
		return handle;
	}

	private LockHandle acquireObserved(LockRequest request) {
		long start = System.nanoTime();
		Observation observation = this.observations.startAcquire(request.name());
		try {
			LockHandle handle = PreparedHandles.take(this, request);
			if (handle == null) {
				handle = this.engine.get().acquire(request);
			}
			LockObservations.acquired(observation);
			return handle;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			LockAcquisitionException failure = new LockAcquisitionException(request.name(), request.key(),
					CallWait.since(start), ex);
			LockObservations.notAcquired(observation, failure);
			throw failure;
		}
		catch (LockAcquisitionException ex) {
			LockAcquisitionException failure = CallWait.report(ex, start);
			LockObservations.notAcquired(observation, failure);
			throw failure;
		}
		catch (RuntimeException ex) {
			observation.error(ex).stop();
			throw ex;
		}
	}

	/**
	 * A grant can arrive after its lease ran out by the holder's clock: a store that stalled while the request was
	 * on its way, a pause of this JVM between the grant and here. The store may already have let the next holder in,
	 * so the work must not start; the loss was reported when {@link LockHandle#isLost()} noticed it.
	 */
	private static void refuseIfArrivedLost(LockHandle handle, OnLost onLost) {
		if (onLost != OnLost.IGNORE && handle.releaseIfLost()) {
			throw lostException(handle);
		}
	}

	/** The exception for a lock found lost (and lost for good: its loss reason never goes back to null). */
	static LockLostException lostException(LockHandle handle) {
		LostLock.Reason reason = handle.lossReason();
		if (reason == null) {
			throw new IllegalStateException(handle + " is not lost: no LockLostException for it");
		}
		return new LockLostException(handle.name(), handle.key(), handle.token(), reason);
	}

	/** The thread is done with the lock: released now, or when the transaction the work joined completes. */
	void releaseWhenDone(HeldLock held) {
		// Asked before the release callback is built, so a call outside a transaction does not allocate it.
		if (this.transactionBoundRelease != null && this.transactionBoundRelease.isTransactionActive()) {
			this.transactionBoundRelease.deferToTransaction(() -> transactionCompleted(held));
			held.holds++;
			return;
		}
		threadDone(held);
	}

	private void transactionCompleted(HeldLock held) {
		if (--held.holds == 0) {
			threadDone(held);
		}
	}

	/** The owning thread is done with the lock: later calls there acquire it anew; a running stage may keep it. */
	private void threadDone(HeldLock held) {
		HeldLocks owner = held.owner;
		// Always a thread's here: a detached lock (a subscription's) is only ever let go of.
		if (owner != null) {
			owner.forget(held);
		}
		letGo(held);
	}

	/** Drops one claim on the lock, from any thread; the last one releases it. */
	void letGo(HeldLock held) {
		if (held.claims.decrementAndGet() == 0) {
			release(held);
		}
	}

	private void release(HeldLock held) {
		try {
			held.handle.release();
		}
		catch (LockStoreException ex) {
			// The work is done; failing the call now would misreport it. The release did not run: the lease frees
			// the lock.
			logger.warn(ex.getMessage() + " The lock stays until its lease runs out.");
		}
		catch (RuntimeException ex) {
			// No answer: the release may or may not have reached the store. Either way the lock is freed, at the
			// latest when its lease runs out.
			logger.warn("The release of " + held.handle + " was not confirmed (" + ex.getClass().getSimpleName()
					+ "); if it did not reach the lock store, the lock stays until its lease runs out");
		}
		finally {
			LockObservations.released(held.observation, held.handle.isLost());
		}
	}

}
