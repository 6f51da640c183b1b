package io.github.distlock.benchmarks.lockserver;

/**
 * What a lock server has done so far, by its own count: the requests it received from clients, and a number that
 * grows by one with every write (ZooKeeper's zxid, etcd's revision), so that the difference of two readings counts the
 * writes between them.
 */
public record ServerCounters(long received, long writes) {

	/** What happened between {@code earlier} and these counters. */
	public ServerCounters since(ServerCounters earlier) {
		return new ServerCounters(this.received - earlier.received, this.writes - earlier.writes);
	}

}
