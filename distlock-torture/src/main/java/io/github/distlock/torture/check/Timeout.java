package io.github.distlock.torture.check;

/**
 * A call that did not get its lock in time.
 *
 * @param worker the worker
 * @param call the call's number within the worker
 * @param key the lock key
 * @param startNanos when the call started
 * @param endNanos when it gave up
 * @param unavailable whether the lock store was unreachable (rather than the lock busy)
 */
public record Timeout(String worker, long call, String key, long startNanos, long endNanos, boolean unavailable) {

}
