package io.github.distlock.shedlock;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.support.LockException;

import io.github.distlock.LockAcquisitionException;
import io.github.distlock.LockStoreException;
import io.github.distlock.engine.DisplayedKey;
import io.github.distlock.engine.LockEngine;
import io.github.distlock.engine.LockHandle;
import io.github.distlock.engine.LockRequest;
import io.github.distlock.execution.LockObservations;

/**
 * A ShedLock lock provider on a distlock {@link LockEngine}: a {@code @SchedulerLock} run is one acquisition of the
 * distlock lock {@code (name, <ShedLock lock name>)}, tried once, whose lease is the run's {@code lockAtMostFor} and
 * which the engine does not renew, so the lock lives at most that long, as ShedLock promises.
 * <p>
 * A lock held by anyone else, this process included, is {@linkplain Optional#empty() no lock}; a store that cannot
 * be reached (or refuses) throws ShedLock's {@link LockException}, as ShedLock's own providers do, so the run is
 * skipped and the scheduler logs why. See the package documentation for {@code lockAtLeastFor}, fencing tokens and
 * lost locks.
 * <p>
 * Given an {@link ObservationRegistry}, runs count in the same meters as annotated calls: the single try in
 * {@code distlock.acquire} (an acquisition, or {@code timed_out} when another run holds the lock), and the run from its
 * lock to the job's end in {@code distlock.held} ({@code released}, or {@code lost} when the lock was lost meanwhile).
 * <p>
 * Close the provider with the application (Spring calls {@link #close()} on a bean): it ends the thread that
 * releases locks when their {@code lockAtLeastFor} is over, and such locks then stay held until their
 * {@code lockAtMostFor}.
 */
public final class DistLockLockProvider implements ExtensibleLockProvider, AutoCloseable {

	/** The distlock lock name (its namespace) ShedLock's lock names are keys of, unless another is given. */
	public static final String DEFAULT_NAME = "shedlock";

	private static final Duration ONE_MILLISECOND = Duration.ofMillis(1);

	/** How long a lease must outlast a release due at lockAtLeastUntil, so that the release comes first. */
	private static final Duration RELEASE_MARGIN = Duration.ofSeconds(1);

	private final LockEngine engine;

	private final String name;

	private final AtLeastForReleases atLeastForReleases = new AtLeastForReleases();

	private final LockObservations observations;

	/** A provider whose locks are keys of the distlock lock name {@value #DEFAULT_NAME}. */
	public DistLockLockProvider(LockEngine engine) {
		this(engine, DEFAULT_NAME);
	}

	/**
	 * @param engine the engine every lock is taken on; the provider does not close it
	 * @param name the distlock lock name whose keys ShedLock's lock names are: applications that share a store and
	 * must not share their jobs' locks use different names
	 */
	public DistLockLockProvider(LockEngine engine, String name) {
		this(engine, name, ObservationRegistry.NOOP);
	}

	/**
	 * @param engine the engine every lock is taken on; the provider does not close it
	 * @param name the distlock lock name whose keys ShedLock's lock names are
	 * @param observationRegistry where runs are observed (timers {@code distlock.acquire} and {@code distlock.held},
	 * tagged with the lock name)
	 */
	public DistLockLockProvider(LockEngine engine, String name, ObservationRegistry observationRegistry) {
		Objects.requireNonNull(observationRegistry, "observationRegistry");
		this.observations = new LockObservations(() -> observationRegistry);
		this.engine = Objects.requireNonNull(engine, "engine");
		this.name = Objects.requireNonNull(name, "name");
		if (name.isBlank()) {
			throw new IllegalArgumentException("The distlock lock name of ShedLock's locks must not be blank");
		}
	}

	@Override
	public Optional<SimpleLock> lock(LockConfiguration configuration) {
		// lockAtMostUntil counts from the configuration's creation, as ShedLock's own providers count it.
		Duration lease = atLeastOneMillisecond(
				Duration.between(ClockProvider.now(), configuration.getLockAtMostUntil()));
		LockRequest request = new LockRequest(this.name, configuration.getName(), lease, Duration.ZERO, false, null);
		LockHandle handle;
		Observation acquire = this.observations.startAcquire(this.name);
		try {
			handle = this.engine.acquire(request);
			LockObservations.acquired(acquire);
		}
		catch (LockAcquisitionException ex) {
			LockObservations.notAcquired(acquire, ex);
			if (ex.isStoreUnavailable()) {
				throw new LockException(String.valueOf(ex.getMessage()), ex);
			}
			// Held by another run (or the engine was interrupted, and kept the interrupt): this run is skipped.
			return Optional.empty();
		}
		catch (LockStoreException ex) {
			acquire.error(ex).stop();
			throw new LockException(String.valueOf(ex.getMessage()), ex);
		}
		catch (RuntimeException ex) {
			// Stopped whatever the failure, or distlock.acquire.active would count this try as waiting for ever.
			acquire.error(ex).stop();
			throw ex;
		}
		catch (InterruptedException ex) {
			LockObservations.notAcquired(acquire,
					new LockAcquisitionException(this.name, configuration.getName(), Duration.ZERO, ex));
			Thread.currentThread().interrupt();
			throw new LockException("Interrupted while taking ShedLock lock '" + DisplayedKey.of(configuration.getName())
					+ "'", ex);
		}
		LockRun run = new LockRun(configuration.getName(), handle, this.observations.startHeld(this.name));
		DistLockShedLock.started(run);
		return Optional.of(new DistLockSimpleLock(this, run, configuration));
	}

	/**
	 * Ends a run: frees its lock now, or at its {@code lockAtLeastUntil} when that is still to come.
	 * @throws LockException if the store could not be reached to free it now; it then expires with its lease
	 */
	void unlock(LockHandle handle, LockConfiguration configuration) {
		Duration untilAtLeast = Duration.between(ClockProvider.now(), configuration.getLockAtLeastUntil());
		if (untilAtLeast.isNegative() || untilAtLeast.isZero()) {
			release(handle, configuration.getName());
		}
		else if (!releasedLaterByTheStore(handle, untilAtLeast, configuration.getName())) {
			keepLeaseBeyond(handle, untilAtLeast);
			this.atLeastForReleases.releaseAfter(handle, untilAtLeast, configuration.getName());
		}
	}

	/**
	 * Leaves the lock to expire in the store at {@code lockAtLeastUntil}, where the engine can set a lock's expiry
	 * (Redis can): it is then freed at that instant whatever becomes of this process, as ShedLock's own providers
	 * free it.
	 * @return false when the engine cannot, and this process must release it then
	 */
	private static boolean releasedLaterByTheStore(LockHandle handle, Duration untilAtLeast, String lockName) {
		try {
			// False when the lock was lost while the job ran: the engine has told its LockLostListener already.
			handle.releaseAfter(untilAtLeast);
			return true;
		}
		catch (UnsupportedOperationException ex) {
			return false;
		}
		catch (RuntimeException ex) {
			throw new LockException("Could not release ShedLock lock '" + DisplayedKey.of(lockName)
					+ "' at the end of its lockAtLeastFor; it expires at its lockAtMostFor: " + ex.getMessage(), ex);
		}
	}

	/**
	 * When lockAtLeastUntil is about the end of the lease (lockAtLeastFor as long as lockAtMostFor), the engine would
	 * find the lease run out while the lock is still held, and report a lost lock, in a race with the release due at
	 * the same instant. A lease that outlasts lockAtLeastUntil by {@link #RELEASE_MARGIN} lets the release win: one
	 * more round trip, in that case only; and should this process stop before the release, the lock outlives its
	 * lockAtMostFor by no more than the margin.
	 */
	private static void keepLeaseBeyond(LockHandle handle, Duration untilAtLeast) {
		Duration wanted = untilAtLeast.plus(RELEASE_MARGIN);
		if (handle.leaseDeadlineNanos() - System.nanoTime() < wanted.toNanos()) {
			try {
				// False when the lock is no longer ours (the engine reports that) or the store is unreachable: the
				// release below is then a no-op or a race with the lease, as without this.
				handle.extend(wanted);
			}
			catch (UnsupportedOperationException ex) {
				// An engine that cannot extend: the lease ends the lock, and the engine may call that a loss.
			}
		}
	}

	private static void release(LockHandle handle, String lockName) {
		try {
			// False when the lock was lost while the job ran: the engine has told its LockLostListener already.
			handle.release();
		}
		catch (RuntimeException ex) {
			throw new LockException("Could not release ShedLock lock '" + DisplayedKey.of(lockName)
					+ "'; it expires at its lockAtMostFor: " + ex.getMessage(), ex);
		}
	}

	/** Stores keep leases in whole milliseconds at best, and distlock refuses anything shorter. */
	static Duration atLeastOneMillisecond(Duration duration) {
		return (duration.compareTo(ONE_MILLISECOND) < 0) ? ONE_MILLISECOND : duration;
	}

	/**
	 * Stops the thread that releases locks at the end of their {@code lockAtLeastFor}. Locks still waiting for it
	 * stay held until their {@code lockAtMostFor}: releasing them early would let another instance run the job again
	 * sooner than {@code lockAtLeastFor} allows. The engine is left open.
	 */
	@Override
	public void close() {
		this.atLeastForReleases.close();
	}

	@Override
	public String toString() {
		return "DistLockLockProvider on " + this.engine.getClass().getSimpleName() + " (lock name '" + this.name + "')";
	}

}
