package io.github.distlock.torture.worker;

/**
 * Runs a section under some lock, throwing {@code LockAcquisitionException} when the lock is not had in time.
 */
@FunctionalInterface
public interface LockedCall {

	void run(Section section);

}
