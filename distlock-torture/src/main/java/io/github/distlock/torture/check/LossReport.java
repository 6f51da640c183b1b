package io.github.distlock.torture.check;

/**
 * A loss the library reported to its listeners in a worker.
 *
 * @param worker the worker
 * @param key the lock key
 * @param token the lost acquisition's token
 * @param reason the library's reason
 * @param nanos when it was reported
 */
public record LossReport(String worker, String key, long token, String reason, long nanos) {

}
