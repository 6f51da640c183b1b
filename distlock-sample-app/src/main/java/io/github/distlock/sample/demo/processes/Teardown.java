package io.github.distlock.sample.demo.processes;

import java.io.PrintStream;
import java.util.ArrayDeque;
import java.util.Deque;

/**
 * Everything the demo started, stopped in reverse order, once: when the demo ends, when it fails, and when the JVM
 * is told to exit (Ctrl-C, SIGTERM) while it runs, so that no process outlives the demo. In that last case the
 * demo's thread is interrupted first, so that it stops driving processes that are going away.
 */
final class Teardown implements AutoCloseable {

	private final Deque<Step> steps = new ArrayDeque<>();

	private final Thread hook;

	private final PrintStream out;

	private boolean closed;

	private Teardown(PrintStream out, Thread demo) {
		this.out = out;
		this.hook = new Thread(() -> {
			out.println("Interrupted: stopping everything the demo started");
			demo.interrupt();
			close();
		}, "two-process-demo-teardown");
	}

	/**
	 * A teardown that also runs when the JVM exits before it was closed.
	 * @param out where to say what was stopped
	 */
	static Teardown onExit(PrintStream out) {
		Teardown teardown = new Teardown(out, Thread.currentThread());
		Runtime.getRuntime().addShutdownHook(teardown.hook);
		return teardown;
	}

	/**
	 * Registers something just started.
	 * @param done the line to print once it has stopped, such as "stopped redis-server"
	 * @param stop how to stop it
	 * @throws IllegalStateException (after stopping it) if the teardown has already run, because the JVM is exiting
	 */
	synchronized void addStep(String done, Runnable stop) {
		if (this.closed) {
			stop.run();
			throw new IllegalStateException("The demo is stopping");
		}
		this.steps.push(new Step(done, stop));
	}

	/** Registers something just started that stops when closed; returns it. */
	<T extends AutoCloseable> T add(String done, T resource) {
		addStep(done, () -> {
			try {
				resource.close();
			}
			catch (Exception ex) {
				throw new IllegalStateException(ex.getMessage(), ex);
			}
		});
		return resource;
	}

	/**
	 * Stops everything registered, the last first; a step that fails does not keep the others from running.
	 * Synchronized as a whole: a Ctrl-C during a normal teardown waits for it rather than letting the JVM exit with
	 * half of it done.
	 */
	@Override
	public synchronized void close() {
		if (this.closed) {
			return;
		}
		this.closed = true;
		while (!this.steps.isEmpty()) {
			Step step = this.steps.pop();
			try {
				step.stop().run();
				this.out.println("  " + step.done());
			}
			catch (RuntimeException ex) {
				this.out.println("  failed: " + step.done() + ": " + ex.getMessage());
			}
		}
		if (Thread.currentThread() != this.hook) {
			try {
				Runtime.getRuntime().removeShutdownHook(this.hook);
			}
			catch (IllegalStateException ex) {
				// The JVM is already exiting; the hook finds nothing left to do.
			}
		}
	}

	private record Step(String done, Runnable stop) {

	}

}
