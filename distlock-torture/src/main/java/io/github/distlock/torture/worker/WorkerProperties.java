package io.github.distlock.torture.worker;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * What the harness tells a worker on its command line ({@code --torture.worker=w1 ...}).
 *
 * @param worker the worker's name in the histories
 * @param history the file this worker appends its events to
 * @param fencePort the port of the fence server on loopback
 * @param threads how many threads lock concurrently
 * @param keys the hot lock keys the threads contend for
 * @param lease the lease of every lock (also read by the annotation as {@code ${torture.lease}})
 * @param waitTime how long a call waits for a lock (also {@code ${torture.wait-time}})
 * @param seed seeds the threads' random keys, hold times and pauses
 * @param lockMode the real annotation, leader election, or the deliberately broken lock of the negative control
 * @param fenceChecked whether the fence checks tokens (false only for the negative control)
 */
@ConfigurationProperties("torture")
public record WorkerProperties(String worker, Path history, int fencePort, int threads, List<String> keys,
		Duration lease, Duration waitTime, long seed, LockMode lockMode, boolean fenceChecked) {

	/** How the critical section is protected. */
	public enum LockMode {

		/** {@code @DistributedLock}: the code under test. */
		ANNOTATION,

		/** A plain GET-then-SET, not atomic: the negative control the checker must catch. */
		BROKEN,

		/**
		 * {@code @LeaderOnly}: the section is the leader's work, run in a share of its term, which it then yields, so
		 * that terms change hands as often as locks do and each term is one acquisition to the checker.
		 */
		LEADER

	}

}
