package io.github.distlock.benchmarks.measure;

/**
 * Watches one hot lock from inside its critical section: who got it, how long after the previous holder began to
 * release it, whether the hand-over crossed to another client, and whether two holders were ever inside at once.
 * <p>
 * Its methods are synchronized although the lock under test should make that unnecessary: if the lock fails to
 * exclude, the log must still count correctly (and report the violation) rather than race.
 */
public final class HandOverLog {

	private final long[] acquisitionsByClient;

	private final Samples handOverNanos = new Samples();

	private final long windowNanos;

	private long windowEndNanos = Long.MAX_VALUE;

	private int inside;

	private long violations;

	private long totalAcquisitions;

	private long counted;

	private long crossClient;

	private int lastClient = -1;

	private long lastExitNanos;

	/**
	 * @param windowNanos how long after {@link #open} acquisitions count; later ones (threads draining at the end)
	 * are counted only in {@link #totalAcquisitions()}
	 */
	public HandOverLog(int clients, long windowNanos) {
		this.acquisitionsByClient = new long[clients];
		this.windowNanos = windowNanos;
	}

	/** Starts the window; every load thread calls it with the same start time before its first acquisition. */
	public synchronized void open(long startNanos) {
		this.windowEndNanos = startNanos + this.windowNanos;
	}

	/** The first thing the holder does inside the lock. */
	public synchronized void entered(int client) {
		long now = System.nanoTime();
		if (++this.inside != 1) {
			this.violations++;
		}
		this.totalAcquisitions++;
		if (now - this.windowEndNanos > 0) {
			return;
		}
		this.counted++;
		this.acquisitionsByClient[client]++;
		if (this.lastClient >= 0) {
			this.handOverNanos.add(now - this.lastExitNanos);
			if (client != this.lastClient) {
				this.crossClient++;
			}
		}
	}

	/** The last thing the holder does before it releases the lock. */
	public synchronized void exiting(int client) {
		this.inside--;
		this.lastClient = client;
		this.lastExitNanos = System.nanoTime();
	}

	public synchronized long countedAcquisitions() {
		return this.counted;
	}

	/** Every acquisition, including those of threads that were still waiting when the window closed. */
	public synchronized long totalAcquisitions() {
		return this.totalAcquisitions;
	}

	public synchronized long violations() {
		return this.violations;
	}

	/** Each client's share of the counted acquisitions, in per cent. */
	public synchronized double[] sharesPercent() {
		double[] shares = new double[this.acquisitionsByClient.length];
		for (int i = 0; i < shares.length; i++) {
			shares[i] = (this.counted == 0) ? 0 : 100.0 * this.acquisitionsByClient[i] / this.counted;
		}
		return shares;
	}

	/** Per cent of hand-overs that went to a different client than the one releasing. */
	public synchronized double crossClientPercent() {
		int handOvers = this.handOverNanos.size();
		return (handOvers == 0) ? Double.NaN : 100.0 * this.crossClient / handOvers;
	}

	public synchronized double handOverMicros(double percentile) {
		return this.handOverNanos.percentileMicros(percentile);
	}

}
