package io.github.distlock.benchmarks.measure;

import java.lang.management.ManagementFactory;

import com.sun.management.OperatingSystemMXBean;

/**
 * CPU time of this JVM, every thread together: what a lock library costs its application, its I/O threads included,
 * which a per-thread clock would miss. The harness is idle while a round runs, so the round's delta is the load's.
 */
public final class ProcessCpu {

	private static final OperatingSystemMXBean OS = (OperatingSystemMXBean) ManagementFactory
		.getOperatingSystemMXBean();

	private ProcessCpu() {
	}

	public static long nanos() {
		return OS.getProcessCpuTime();
	}

}
