package io.github.distlock.torture.worker;

import io.github.distlock.fixtures.redis.RespClient;

/**
 * One call of a worker thread: what it asks for, and what happened inside the critical section. Carried into the
 * locked method as its argument, so that the times measured inside survive an exception thrown after it returned
 * (a lost lock is reported by the interceptor after the method's body has finished).
 */
public final class Section {

	final String worker;

	final String thread;

	final long call;

	private final String key;

	final long holdNanos;

	/** This thread's own connection to the fence server. */
	final RespClient fence;

	final long startNanos;

	long token;

	/** When the body learnt it holds the lock; 0 while it has not. */
	long acquiredNanos;

	/** When the body finished, just before the lock is released; 0 while it has not. */
	long endNanos;

	/** Fence answers, one character per write: 1 accepted, 0 rejected. */
	final StringBuilder fenceAnswers = new StringBuilder();

	Section(String worker, String thread, long call, String key, long holdNanos, RespClient fence) {
		this.worker = worker;
		this.thread = thread;
		this.call = call;
		this.key = key;
		this.holdNanos = holdNanos;
		this.fence = fence;
		this.startNanos = System.nanoTime();
	}

	/** The lock key; the annotation reads it as {@code #section.key}. */
	public String getKey() {
		return this.key;
	}

	String writer() {
		return this.worker + "/" + this.call;
	}

	boolean acquired() {
		return this.acquiredNanos != 0;
	}

}
