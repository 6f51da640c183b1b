package io.github.distlock.execution;

import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * Where locked reactive methods make the engine's blocking calls. Two pools of daemon threads, apart from each other
 * and from Reactor's shared bounded elastic scheduler: a release must never queue behind acquisitions waiting for
 * that very lock (with one pool, enough waiters would hold every thread until their wait times ran out), and lock
 * waits must not take the threads the application's own blocking work runs on.
 */
final class LockSchedulers {

	/** Acquisitions, each holding a thread for up to its wait time: as many threads as Reactor's elastic pool. */
	static final Scheduler ACQUIRE = Schedulers.newBoundedElastic(Schedulers.DEFAULT_BOUNDED_ELASTIC_SIZE,
			Schedulers.DEFAULT_BOUNDED_ELASTIC_QUEUESIZE, "distlock-acquire", 60, true);

	/** Releases: one round trip each. */
	static final Scheduler RELEASE = Schedulers.newBoundedElastic(Schedulers.DEFAULT_BOUNDED_ELASTIC_SIZE,
			Schedulers.DEFAULT_BOUNDED_ELASTIC_QUEUESIZE, "distlock-release", 60, true);

	private LockSchedulers() {
	}

}
