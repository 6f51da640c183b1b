package io.github.distlock.torture.check;

/**
 * A fault as the injector carried it out.
 *
 * @param kind {@code worker_pause}, {@code worker_kill}, {@code redis_pause} or {@code redis_restart}
 * @param target the worker's name, or {@code redis}
 * @param pid the process signalled
 * @param startNanos when it began
 * @param endNanos when it was over (the process resumed, the server answered again)
 */
public record FaultRecord(String kind, String target, long pid, long startNanos, long endNanos) {

	boolean isRedisFault() {
		return "redis".equals(this.target);
	}

	boolean strikes(String worker, String faultKind) {
		return this.kind.equals(faultKind) && this.target.equals(worker);
	}

	@Override
	public String toString() {
		return this.kind + " " + this.target + " (pid " + this.pid + ")";
	}

}
