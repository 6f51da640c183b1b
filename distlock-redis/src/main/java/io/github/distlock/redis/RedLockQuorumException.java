package io.github.distlock.redis;

/**
 * Too few of a {@link RedLockEngine}'s masters answered for a majority: the message says how many answered, how many
 * are needed, and what became of each master that did not (by its position in {@code distlock.redlock.nodes}, never
 * its address).
 */
public final class RedLockQuorumException extends RuntimeException {

	private final int answered;

	private final int needed;

	public RedLockQuorumException(String message, int answered, int needed) {
		super(message);
		this.answered = answered;
		this.needed = needed;
	}

	/** How many masters answered. */
	public int getAnswered() {
		return this.answered;
	}

	/** How many masters a majority takes. */
	public int getNeeded() {
		return this.needed;
	}

}
