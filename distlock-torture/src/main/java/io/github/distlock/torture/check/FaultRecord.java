package io.github.distlock.torture.check;

/**
 * A fault as the injector carried it out.
 *
 * @param kind {@code worker_pause}, {@code worker_kill}, {@code worker_starve}, {@code redis_pause},
 * {@code redis_restart}, {@code client_kill_normal}, {@code client_kill_pubsub}, {@code db_stall} or
 * {@code db_connection_kill}
 * @param target the worker's name, {@code redis} or {@code database} for the lock store, or {@code workers} for
 * connection kills (every worker's)
 * @param pid the process signalled (for connection kills, the lock server's)
 * @param startNanos when it began
 * @param endNanos when it was over (the process resumed or unpinned, the server answered again, the last round of
 * kills was sent)
 * @param detail what the fault did beyond its kind, such as how many connections it killed; empty if nothing
 */
public record FaultRecord(String kind, String target, long pid, long startNanos, long endNanos, String detail) {

	/** A fault of the lock store itself (Redis or the database), which may take any holder's lock. */
	boolean isStoreFault() {
		return "redis".equals(this.target) || "database".equals(this.target);
	}

	/** A connection kill: the server and its data stay, so it can take no lock from anyone by itself. */
	public boolean isConnectionKill() {
		return this.kind.startsWith("client_kill") || "db_connection_kill".equals(this.kind);
	}

	boolean strikes(String worker, String faultKind) {
		return this.kind.equals(faultKind) && this.target.equals(worker);
	}

	/** Whether the fault was under way at some moment between the two times. */
	boolean overlaps(long fromNanos, long toNanos) {
		return this.startNanos - toNanos <= 0 && fromNanos - this.endNanos <= 0;
	}

	@Override
	public String toString() {
		return this.kind + " " + this.target + " (pid " + this.pid + ")" + (this.detail.isEmpty() ? ""
				: " " + this.detail);
	}

}
