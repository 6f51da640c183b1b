package io.github.distlock.benchmarks.measure;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;

/**
 * Measures the live heap: what is still referenced after full collections, which is what would grow if a lock
 * library kept something per key.
 */
public final class HeapProbe {

	private static final MemoryMXBean MEMORY = ManagementFactory.getMemoryMXBean();

	private HeapProbe() {
	}

	/** Heap in use after collecting; the smallest of a few readings, as a collection can leave floating garbage. */
	public static long liveBytes() {
		long smallest = Long.MAX_VALUE;
		for (int i = 0; i < 3; i++) {
			System.gc();
			try {
				// Lets reference processing and the collector's concurrent phases settle between readings.
				Thread.sleep(20);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				break;
			}
			smallest = Math.min(smallest, MEMORY.getHeapMemoryUsage().getUsed());
		}
		return smallest;
	}

}
