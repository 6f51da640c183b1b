package io.github.distlock.benchmarks.systems;

import java.time.Duration;

/**
 * What every system is configured with, so that they are compared on equal terms: the same lease (kept alive by
 * each system's own renewal) and the same bound on waiting.
 *
 * @param lease the lock's time to live in Redis; renewal happens every third of it
 * @param waitTime how long a blocking acquisition may wait
 */
public record LockSettings(Duration lease, Duration waitTime) {
}
