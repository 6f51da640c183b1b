package io.github.distlock.torture.check;

/**
 * Two acquisitions of one key whose believed holds overlapped.
 *
 * @param older the acquisition with the smaller token (the earlier one in the lock server's order)
 * @param newer the one with the larger token
 * @param fromNanos when both believed they held the lock
 * @param toNanos when one of them stopped believing it
 */
public record Overlap(Acquisition older, Acquisition newer, long fromNanos, long toNanos) {

	public long lengthNanos() {
		return this.toNanos - this.fromNanos;
	}

}
