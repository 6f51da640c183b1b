package io.github.distlock;

/**
 * Told when a held lock is lost. Every bean of this type is called, on the watchdog's thread or the releasing
 * thread, within one renewal interval of the loss. Keep it quick and let it not throw.
 */
@FunctionalInterface
public interface LockLostListener {

	void onLockLost(LostLock lostLock);

}
