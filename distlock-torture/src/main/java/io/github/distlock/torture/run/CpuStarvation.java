package io.github.distlock.torture.run;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Starves one process of CPU without stopping it: every one of its threads is pinned ({@code taskset -a}) onto a
 * single core, together with busy-loop processes pinned there too, until {@link #stop()} gives the process its
 * former cores back and kills the loops. The process keeps running, at a fraction of a core and with long
 * scheduling delays, which is what an oversubscribed host does to a JVM, unlike SIGSTOP which freezes it whole.
 * <p>
 * Core 0 exists on every machine, so the fault also works (if more mildly) on a single-core one.
 */
final class CpuStarvation implements AutoCloseable {

	/** The core the process and the loops share. */
	static final String CORE = "0";

	private final int busyLoops;

	private final List<Process> loops = new ArrayList<>();

	private long pid = -1;

	private String formerCores;

	CpuStarvation(int busyLoops) {
		this.busyLoops = busyLoops;
	}

	/** Fails at once when {@code taskset} (package util-linux) is missing, before a run depends on it. */
	static void requireTaskset() {
		try {
			SystemCommand.run(List.of("taskset", "--version"));
		}
		catch (RuntimeException ex) {
			throw new IllegalStateException("The worker_starve fault needs taskset (package util-linux): "
					+ ex.getMessage(), ex);
		}
	}

	/** Pins the process and starts the loops. */
	synchronized void start(long pid) {
		this.formerCores = cores(pid);
		this.pid = pid;
		SystemCommand.run(List.of("taskset", "-a", "-p", "-c", CORE, String.valueOf(pid)));
		for (int i = 0; i < this.busyLoops; i++) {
			try {
				// A loop of shell builtins, which never sleeps nor forks, and ends by itself if this JVM dies first.
				this.loops.add(new ProcessBuilder("taskset", "-c", CORE, "sh", "-c", "while kill -0 $PPID; do :; done")
					.start());
			}
			catch (IOException ex) {
				throw new UncheckedIOException("Cannot start a busy loop", ex);
			}
		}
	}

	/** Gives the process back the cores it had (all of its threads, including those started meanwhile). */
	synchronized void stop() {
		try {
			if (this.pid >= 0 && ProcessHandle.of(this.pid).map(ProcessHandle::isAlive).orElse(false)) {
				SystemCommand.run(List.of("taskset", "-a", "-p", "-c", this.formerCores, String.valueOf(this.pid)));
			}
		}
		finally {
			this.pid = -1;
			this.loops.forEach(Process::destroyForcibly);
			this.loops.clear();
		}
	}

	String describe() {
		return "cpu-" + CORE + "-shared-with-" + this.busyLoops + "-busy-loops";
	}

	/** The process's current affinity list, such as {@code 0,1} or {@code 0-3}. */
	private static String cores(long pid) {
		String output = SystemCommand.run(List.of("taskset", "-p", "-c", String.valueOf(pid)));
		return output.substring(output.lastIndexOf(':') + 1).trim();
	}

	@Override
	public void close() {
		stop();
	}

}
