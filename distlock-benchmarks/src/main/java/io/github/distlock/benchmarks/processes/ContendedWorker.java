package io.github.distlock.benchmarks.processes;

import java.io.BufferedReader;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.BufferedOutputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

import io.github.distlock.benchmarks.systems.LockClient;
import io.github.distlock.benchmarks.systems.LockSettings;
import io.github.distlock.benchmarks.systems.LockSystem;
import io.github.distlock.benchmarks.systems.SystemCatalog;

/**
 * One application instance of the two-JVM hot-key scenario: one client of one system, in a JVM of its own, driven
 * by the harness over its standard streams.
 * <p>
 * It prints {@value #READY} once its client is connected. Each {@code RUN <start> <window> <threads> <file>} line
 * (times in {@link System#nanoTime()} nanoseconds) starts that many threads at {@code start}, each taking the hot
 * lock over and over until the window closes, and then writes the entry and exit time of every acquisition to the
 * file and prints {@code DONE <timeouts>}; {@code QUIT} ends it. On one Linux machine every JVM reads
 * {@code nanoTime} from the same monotonic clock, so the harness can merge the files of both instances into one
 * history of the lock.
 */
public final class ContendedWorker {

	static final String READY = "WORKER READY";

	static final String DONE = "WORKER DONE";

	static final String HOT_KEY = "two-jvms-hot";

	/** Upper bound on one thread's acquisitions in one window, whatever the window's length. */
	private static final int MAX_PER_THREAD = 2_000_000;

	private ContendedWorker() {
	}

	/** @param args system name, Redis host, Redis port, lease in ms, wait time in ms */
	public static void main(String[] args) throws Exception {
		LockSettings locks = new LockSettings(Duration.ofMillis(Long.parseLong(args[3])),
				Duration.ofMillis(Long.parseLong(args[4])));
		try (LockSystem system = SystemCatalog.named(args[0], args[1], Integer.parseInt(args[2]), locks)) {
			LockClient client = system.client(0);
			// Connects, and loads whatever the system loads on first use, before the harness starts the clock.
			client.runLocked(HOT_KEY + "-warm", () -> {
			});
			System.out.println(READY);
			System.out.flush();
			BufferedReader commands = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
			String line;
			while ((line = commands.readLine()) != null && !line.equals("QUIT")) {
				String[] parts = line.split(" ");
				long timeouts = run(client, Long.parseLong(parts[1]), Long.parseLong(parts[2]),
						Integer.parseInt(parts[3]), Path.of(parts[4]));
				System.out.println(DONE + " " + timeouts);
				System.out.flush();
			}
		}
		System.exit(0);
	}

	private static long run(LockClient client, long startNanos, long windowNanos, int threads, Path file)
			throws InterruptedException, IOException {
		long endNanos = startNanos + windowNanos;
		LongAdder timeouts = new LongAdder();
		List<Acquisitions> perThread = new ArrayList<>();
		List<Thread> workers = new ArrayList<>();
		for (int i = 0; i < threads; i++) {
			Acquisitions acquisitions = new Acquisitions();
			perThread.add(acquisitions);
			Thread worker = new Thread(() -> {
				while (System.nanoTime() - startNanos < 0) {
					LockSupport.parkNanos(startNanos - System.nanoTime());
				}
				int done = 0;
				while (System.nanoTime() - endNanos < 0 && done++ < MAX_PER_THREAD) {
					if (!client.runLocked(HOT_KEY, acquisitions::record)) {
						timeouts.increment();
					}
				}
			}, "two-jvms-" + i);
			workers.add(worker);
			worker.start();
		}
		for (Thread worker : workers) {
			worker.join(TimeUnit.MINUTES.toMillis(2));
			if (worker.isAlive()) {
				throw new IllegalStateException(worker.getName() + " did not finish within 2 minutes");
			}
		}
		try (OutputStream out = Files.newOutputStream(file);
				DataOutputStream data = new DataOutputStream(new BufferedOutputStream(out))) {
			int total = perThread.stream().mapToInt((acquisitions) -> acquisitions.size).sum();
			data.writeInt(total);
			for (Acquisitions acquisitions : perThread) {
				for (int i = 0; i < 2 * acquisitions.size; i++) {
					data.writeLong(acquisitions.times[i]);
				}
			}
		}
		return timeouts.sum();
	}

	/** One thread's acquisitions: entry and exit time of each, recorded inside the lock. */
	private static final class Acquisitions {

		private long[] times = new long[8192];

		private int size;

		void record() {
			long entered = System.nanoTime();
			if (2 * this.size + 2 > this.times.length) {
				this.times = Arrays.copyOf(this.times, this.times.length * 2);
			}
			this.times[2 * this.size] = entered;
			this.times[2 * this.size + 1] = System.nanoTime();
			this.size++;
		}

	}

}
