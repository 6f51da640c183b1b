package io.github.distlock.execution;

/** What the execution core keeps on the calling thread, for tests in other packages that check it leaves nothing. */
public final class ThreadHeldLocks {

	private ThreadHeldLocks() {
	}

	/** Whether the thread keeps no record of held locks at all (not even an empty one). */
	public static boolean none() {
		return HeldLocks.peek() == null;
	}

}
