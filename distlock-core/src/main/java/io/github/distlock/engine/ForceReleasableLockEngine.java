package io.github.distlock.engine;

/**
 * An engine that can remove a lock whoever holds it, for an operator's last resort. The holder finds its lock lost
 * at its next renewal.
 */
public interface ForceReleasableLockEngine extends LockEngine {

	/** @return whether there was such a lock */
	boolean forceRelease(String name, String key);

}
