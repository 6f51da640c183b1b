package io.github.distlock.benchmarks.systems;

import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicReference;

import org.springframework.boot.Banner;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import io.github.distlock.LockAcquisitionException;
import io.github.distlock.engine.LockEngineStatistics;
import io.github.distlock.redis.RedisLockEngine;

/**
 * distlock as applications use it: a call to a {@code @DistributedLock} method of a Spring bean. Each client is a
 * whole application context with its own Redis connection and engine.
 */
public final class AnnotatedLockSystem extends LockSystem {

	/**
	 * Every system's keys start with a fixed part of the same length ("dl-a:{bench:", "dl-e:{bench:", "rdsn:bench:",
	 * "si-s:bench:", "si-p:bench:"), so that Redis memory per lock compares data structures, not name lengths.
	 */
	static final String KEY_PREFIX = "dl-a";

	/**
	 * Holding N locks through the annotation means N nested locked calls on one thread; the holding thread gets a
	 * stack deep enough for that. Only reserved address space: pages are committed as the stack grows.
	 */
	private static final long HOLDER_STACK_BYTES = 1L << 30;

	private final String host;

	private final int port;

	private final LockSettings settings;

	public AnnotatedLockSystem(String host, int port, LockSettings settings) {
		super("distlock-annotated");
		this.host = host;
		this.port = port;
		this.settings = settings;
	}

	@Override
	public boolean isDistlock() {
		return true;
	}

	@Override
	protected LockClient newClient(int index) {
		ConfigurableApplicationContext context = new SpringApplicationBuilder(AnnotatedApplication.class)
			.web(WebApplicationType.NONE)
			.bannerMode(Banner.Mode.OFF)
			.logStartupInfo(false)
			.registerShutdownHook(false)
			// The JDBC engine is on this module's class path too (for --jdbc): this system measures Redis.
			.properties("spring.data.redis.host=" + this.host, "spring.data.redis.port=" + this.port,
					"distlock.backend=redis", "distlock.redis.key-prefix=" + KEY_PREFIX,
					"bench.lease=" + this.settings.lease().toMillis() + "ms",
					"bench.wait-time=" + this.settings.waitTime().toMillis() + "ms")
			.run();
		return new AnnotatedClient(context);
	}

	/**
	 * Lock keys and the engine's waiter queues ("dl-a:{...}:waiters"); not the token floor ("dl-a:token"), one key
	 * for all locks that lives a few seconds after the last grant.
	 */
	@Override
	public String keyPattern() {
		return KEY_PREFIX + ":{*";
	}

	private static final class AnnotatedClient implements LockClient {

		private final ConfigurableApplicationContext context;

		private final LockedWork work;

		private final LostLockCounter lost;

		private final LockEngineStatistics statistics;

		AnnotatedClient(ConfigurableApplicationContext context) {
			this.context = context;
			this.work = context.getBean(LockedWork.class);
			this.lost = context.getBean(LostLockCounter.class);
			this.statistics = context.getBean(RedisLockEngine.class).statistics();
		}

		@Override
		public boolean runLocked(String key, Runnable body) {
			try {
				this.work.locked(key, body);
				return true;
			}
			catch (LockAcquisitionException ex) {
				return failedAcquisition(ex);
			}
		}

		@Override
		public boolean tryRunLocked(String key, Runnable body) {
			try {
				this.work.tryLocked(key, body);
				return true;
			}
			catch (LockAcquisitionException ex) {
				return failedAcquisition(ex);
			}
		}

		private static boolean failedAcquisition(LockAcquisitionException ex) {
			if (ex.isStoreUnavailable()) {
				throw ex;
			}
			return false;
		}

		@Override
		public long holdAll(List<String> keys, Runnable whileHeld) {
			long lostBefore = this.lost.count();
			AtomicReference<Throwable> failure = new AtomicReference<>();
			Thread holder = new Thread(null, () -> {
				try {
					nest(keys, 0, whileHeld);
				}
				catch (Throwable ex) {
					failure.set(ex);
				}
			}, "annotated-holder", HOLDER_STACK_BYTES);
			holder.start();
			try {
				holder.join();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException(ex);
			}
			if (failure.get() != null) {
				throw new IllegalStateException("Holding " + keys.size() + " annotated locks failed", failure.get());
			}
			return this.lost.count() - lostBefore;
		}

		/** Enters the locked method once per key, each call inside the previous one, and runs the work innermost. */
		private void nest(List<String> keys, int depth, Runnable whileHeld) {
			if (depth == keys.size()) {
				whileHeld.run();
				return;
			}
			if (!runLocked(keys.get(depth), () -> nest(keys, depth + 1, whileHeld))) {
				throw new IllegalStateException("Could not acquire the free lock " + keys.get(depth));
			}
		}

		/** The engine's watchdog count: one per tick, its renewal batches all sent at once. */
		@Override
		public OptionalLong renewalRoundTrips() {
			return OptionalLong.of(this.statistics.renewalRoundTrips());
		}

		@Override
		public void close() {
			this.context.close();
		}

	}

}
