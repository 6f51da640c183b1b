package io.github.distlock.autoconfigure;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;

import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordingStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledForJreRange;
import org.junit.jupiter.api.condition.JRE;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ConfigurableApplicationContext;

import io.github.distlock.autoconfigure.LockedServices.OrderService;
import io.github.distlock.autoconfigure.LockedServices.OrderServiceApplication;
import io.github.distlock.fixtures.redis.RedisExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Hundreds of virtual threads in two application instances wait for a few locks: every critical section is
 * exclusive, every lock released, and no carrier thread is pinned by distlock's code while they wait (JFR's
 * {@code jdk.VirtualThreadPinned}, recorded with no threshold, after a warm-up that loads the classes). Needs virtual threads, so it runs on the build's JDK 25
 * pass (CI checks it ran there); the bytecode stays Java 17, so virtual threads are reached by reflection.
 */
@EnabledForJreRange(min = JRE.JAVA_21)
class VirtualThreadLockIntegrationTests {

	private static final int THREADS = 300;

	private static final int CALLS_PER_THREAD = 3;

	private static final int KEYS = 5;

	@RegisterExtension
	static final RedisExtension redis = RedisExtension.anyServer();

	private final ApplicationContextRunner runner = LockContexts.onRedis(redis)
		.withUserConfiguration(OrderServiceApplication.class)
		.withPropertyValues("spring.threads.virtual.enabled=true", "distlock.wait-time=30s");

	@Test
	void hundredsOfWaitingVirtualThreadsExcludeEachOtherAndPinNoCarrierInDistlock() throws Exception {
		List<String> pinnedInDistlock = new CopyOnWriteArrayList<>();
		AtomicInteger pinnedEvents = new AtomicInteger();
		AtomicBoolean workDone = new AtomicBoolean();
		CountDownLatch flushedAfterWork = new CountDownLatch(1);
		this.runner.run((first) -> this.runner.run((second) -> {
			// Warm-up with the recording off: the first calls load classes, and a virtual thread that waits for
			// another to finish loading a class pins its carrier in any code (the JVM loads classes in frames it
			// cannot unmount). The claim is about waiting for locks, so the recording covers the steady state.
			contend(first, second, 16, 2);
			try (RecordingStream recording = new RecordingStream()) {
				recording.enable("jdk.VirtualThreadPinned").withThreshold(Duration.ZERO).withStackTrace();
				recording.onEvent("jdk.VirtualThreadPinned", (event) -> {
					pinnedEvents.incrementAndGet();
					String distlockFrame = distlockFrame(event);
					if (distlockFrame != null) {
						pinnedInDistlock.add(distlockFrame + " " + event);
					}
				});
				// A flush after the work delivers every event recorded during it.
				recording.onFlush(() -> {
					if (workDone.get()) {
						flushedAfterWork.countDown();
					}
				});
				recording.startAsync();
				contend(first, second, THREADS, CALLS_PER_THREAD);
				workDone.set(true);
				assertThat(flushedAfterWork.await(10, TimeUnit.SECONDS)).as("JFR delivered its events").isTrue();
			}
		}));
		assertThat(pinnedInDistlock).as("carriers pinned in distlock's code (of " + pinnedEvents + " pinned events)")
			.isEmpty();
	}

	private void contend(ConfigurableApplicationContext first, ConfigurableApplicationContext second, int threads,
			int callsPerThread) throws Exception {
		OrderService[] services = { first.getBean(OrderService.class), second.getBean(OrderService.class) };
		int[] counters = new int[KEYS];
		AtomicIntegerArray inside = new AtomicIntegerArray(KEYS);
		AtomicInteger overlaps = new AtomicInteger();
		AtomicInteger onVirtualThreads = new AtomicInteger();
		CountDownLatch start = new CountDownLatch(1);
		List<Future<?>> calls = new ArrayList<>();
		ExecutorService virtualThreads = newVirtualThreadPerTaskExecutor();
		try {
			for (int t = 0; t < threads; t++) {
				OrderService service = services[t % 2];
				int thread = t;
				calls.add(virtualThreads.submit(() -> {
					start.await();
					for (int call = 0; call < callsPerThread; call++) {
						int key = (thread + call) % KEYS;
						service.shared("vt-" + key, () -> {
							if (isVirtual(Thread.currentThread())) {
								onVirtualThreads.incrementAndGet();
							}
							if (inside.incrementAndGet(key) > 1) {
								overlaps.incrementAndGet();
							}
							int before = counters[key];
							Thread.yield();
							counters[key] = before + 1;
							inside.decrementAndGet(key);
							return null;
						});
					}
					return null;
				}));
			}
			start.countDown();
			for (Future<?> call : calls) {
				call.get(120, TimeUnit.SECONDS);
			}
		}
		finally {
			virtualThreads.shutdownNow();
		}
		int total = 0;
		for (int count : counters) {
			total += count;
		}
		assertThat(total).as("every increment under its lock counted once").isEqualTo(threads * callsPerThread);
		assertThat(overlaps.get()).isZero();
		assertThat(onVirtualThreads.get()).isEqualTo(threads * callsPerThread);
		assertThat(RedisKeys.locks(redis)).as("every lock released").isEmpty();
	}

	/** The first frame of distlock's own code on the pinned thread's stack, or null. */
	private static String distlockFrame(RecordedEvent event) {
		if (event.getStackTrace() == null) {
			return null;
		}
		for (RecordedFrame frame : event.getStackTrace().getFrames()) {
			String type = frame.getMethod().getType().getName();
			if (type.startsWith("io.github.distlock.") && !type.contains("Tests")) {
				return type + "#" + frame.getMethod().getName();
			}
		}
		return null;
	}

	private static ExecutorService newVirtualThreadPerTaskExecutor() throws Exception {
		return (ExecutorService) Executors.class.getMethod("newVirtualThreadPerTaskExecutor").invoke(null);
	}

	private static boolean isVirtual(Thread thread) {
		try {
			Method isVirtual = Thread.class.getMethod("isVirtual");
			return (boolean) isVirtual.invoke(thread);
		}
		catch (ReflectiveOperationException ex) {
			throw new IllegalStateException(ex);
		}
	}

}
