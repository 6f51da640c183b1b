package io.github.distlock.interceptor;

import java.lang.reflect.Method;
import java.util.function.Supplier;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.springframework.util.ClassUtils;

import io.github.distlock.LockAcquisitionException;
import io.github.distlock.LockLostException;
import io.github.distlock.LockStoreException;
import io.github.distlock.OnLost;
import io.github.distlock.engine.LockEngine;
import io.github.distlock.engine.LockHandle;
import io.github.distlock.interceptor.HeldLocks.HeldLock;

/**
 * Runs a locked method: evaluates its key, enters an already held lock or acquires it, and releases it when the
 * outermost call for that lock is done (or when the transaction that call joined completes). A lock lost on the
 * way ends the call with {@link LockLostException} unless the method chose {@link OnLost#IGNORE}.
 * <p>
 * Knows nothing of AOP: {@link LockInterceptor} adapts it to method interception.
 */
public class LockAspectSupport {

	private static final Log logger = LogFactory.getLog(LockAspectSupport.class);

	private static final boolean TRANSACTIONS_PRESENT = ClassUtils.isPresent(
			"org.springframework.transaction.support.TransactionSynchronizationManager",
			LockAspectSupport.class.getClassLoader());

	private final LockOperationSource operations;

	private final LockKeyEvaluator keys;

	private final Supplier<LockEngine> engine;

	private final TransactionBoundRelease transactionBoundRelease;

	private final LockObservations observations;

	/**
	 * @param engine supplies the engine on first use, so creating the interceptor does not connect to the store
	 * @param observationRegistry supplies the registry that waiting and holding are observed with
	 */
	public LockAspectSupport(LockOperationSource operations, LockKeyEvaluator keys, Supplier<LockEngine> engine,
			Supplier<ObservationRegistry> observationRegistry) {
		this.observations = new LockObservations(observationRegistry);
		this.operations = operations;
		this.keys = keys;
		this.engine = engine;
		this.transactionBoundRelease = TRANSACTIONS_PRESENT ? new TransactionBoundRelease() : null;
	}

	/**
	 * The innermost lock the current thread holds through {@code @DistributedLock}, or null. Backs
	 * {@link io.github.distlock.LockContext}.
	 */
	public static LockHandle currentHandle() {
		HeldLocks locks = HeldLocks.peek();
		HeldLock held = (locks != null) ? locks.innermost() : null;
		return (held != null) ? held.handle : null;
	}

	/** The locked work itself: the rest of the interceptor chain. */
	@FunctionalInterface
	public interface Invocation {

		Object proceed() throws Throwable;

	}

	public Object invoke(Method method, Object target, Object[] args, Class<?> targetClass, Invocation invocation)
			throws Throwable {
		LockOperation operation = this.operations.getOperation(method, targetClass);
		if (operation == null) {
			return invocation.proceed();
		}
		String key = this.keys.evaluate(operation, target, args);
		HeldLocks heldLocks = HeldLocks.peek();
		HeldLock held = (heldLocks != null) ? heldLocks.find(this, operation.name(), key) : null;
		if (held != null && held.handle.isLost() && operation.onLost() != OnLost.IGNORE) {
			// Entering a lock already lost would run this call unprotected from its first line.
			throw lostException(held.handle);
		}
		if (held == null) {
			LockHandle handle = acquire(operation, key);
			// Only now: a thread that failed to acquire must not be left with an empty HeldLocks.
			heldLocks = HeldLocks.current();
			held = heldLocks.add(this, handle, operation.onLost(), this.observations.startHeld(operation));
			if (TRANSACTIONS_PRESENT) {
				LockOwnershipCheck.guardCurrentTransaction(held);
			}
		}
		LossInterruption interruption = (operation.onLost() == OnLost.INTERRUPT)
				? LossInterruption.arm(held.handle) : null;
		HeldLock outer = heldLocks.enter(held);
		Object result;
		try {
			result = invocation.proceed();
		}
		catch (Throwable ex) {
			exit(heldLocks, held, outer, interruption);
			if (interruption != null && interruption.fired() && ex instanceof InterruptedException) {
				// The interruption was ours, so the loss is the cause the caller must see.
				LockLostException lost = lostException(held.handle);
				lost.addSuppressed(ex);
				throw lost;
			}
			if (held.handle.isLost() && operation.onLost() != OnLost.IGNORE && !(ex instanceof LockLostException)) {
				// The method's own exception stays the one the caller sees; the loss travels with it.
				ex.addSuppressed(lostException(held.handle));
			}
			throw ex;
		}
		exit(heldLocks, held, outer, interruption);
		if (held.handle.isLost() && operation.onLost() != OnLost.IGNORE) {
			throw lostException(held.handle);
		}
		return result;
	}

	private LockHandle acquire(LockOperation operation, String key) {
		Observation observation = this.observations.startAcquire(operation);
		try {
			LockHandle handle = this.engine.get().acquire(operation.request(key));
			LockObservations.acquired(observation);
			return handle;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			LockAcquisitionException failure = new LockAcquisitionException(operation.name(), key,
					operation.waitTime(), ex);
			LockObservations.notAcquired(observation, failure);
			throw failure;
		}
		catch (LockAcquisitionException ex) {
			LockObservations.notAcquired(observation, ex);
			throw ex;
		}
		catch (RuntimeException ex) {
			observation.error(ex).stop();
			throw ex;
		}
	}

	private void exit(HeldLocks heldLocks, HeldLock held, HeldLock outer, LossInterruption interruption) {
		if (interruption != null) {
			interruption.disarm();
		}
		if (heldLocks.exit(held, outer)) {
			releaseWhenDone(held);
		}
	}

	private static LockLostException lostException(LockHandle handle) {
		return new LockLostException(handle.name(), handle.key(), handle.token(), handle.lossReason());
	}

	private void releaseWhenDone(HeldLock held) {
		// Asked before the release callback is built, so a call outside a transaction does not allocate it.
		if (this.transactionBoundRelease != null && this.transactionBoundRelease.isTransactionActive()) {
			this.transactionBoundRelease.deferToTransaction(() -> transactionCompleted(held));
			held.holds++;
			return;
		}
		release(held);
	}

	private void transactionCompleted(HeldLock held) {
		if (--held.holds == 0) {
			release(held);
		}
	}

	private void release(HeldLock held) {
		held.owner.forget(held);
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
			logger.warn("The release of " + held.handle + " was not confirmed (" + ex.getClass().getSimpleName() + "); if it did not reach the "
					+ "lock store, the lock stays until its lease runs out");
		}
		finally {
			LockObservations.released(held.observation, held.handle.isLost());
		}
	}

}
