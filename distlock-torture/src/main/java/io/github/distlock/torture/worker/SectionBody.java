package io.github.distlock.torture.worker;

import java.util.concurrent.TimeUnit;

import io.github.distlock.torture.fence.Fence;

/**
 * The critical section itself, the same whichever lock guards it: record the acquisition, write to the fenced
 * resource on entering, hold for a while, write again on leaving.
 * <p>
 * It deliberately does not look at {@code LockContext.isLost()} before writing: the fence is the last line of
 * defence, and the run shows that it holds when a late holder does write.
 */
public final class SectionBody {

	private final WorkerHistory history;

	private final boolean fenceChecked;

	public SectionBody(WorkerHistory history, boolean fenceChecked) {
		this.history = history;
		this.fenceChecked = fenceChecked;
	}

	void run(Section section, long token) {
		section.token = token;
		section.acquiredNanos = System.nanoTime();
		this.history.acquired(section);
		try {
			write(section, "enter");
			TimeUnit.NANOSECONDS.sleep(section.holdNanos);
			write(section, "exit");
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted inside the critical section", ex);
		}
		finally {
			// Before the lock is released: a recorded hold never extends past the real one.
			section.endNanos = System.nanoTime();
			// Recorded before the release too: a worker killed between its release and its record of it would
			// otherwise seem to hold the lock until the kill, over its successor's hold.
			this.history.left(section);
		}
	}

	private void write(Section section, String phase) {
		boolean accepted = Fence.write(section.fence, section.getKey(), section.token, section.writer(), phase,
				this.fenceChecked);
		section.fenceAnswers.append(accepted ? '1' : '0');
	}

}
