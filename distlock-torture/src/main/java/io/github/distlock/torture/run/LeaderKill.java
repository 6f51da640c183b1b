package io.github.distlock.torture.run;

import java.util.concurrent.TimeUnit;

/**
 * What a {@code leader_kill} did: which member it killed, which one the others elected, and how long each step took
 * from the kill.
 *
 * @param pid the killed leader's process
 * @param killed the killed member's name
 * @param elected the member the survivors elected
 * @param electedNanos from the kill until a survivor named the new leader: how long the ensemble had no leader
 * @param rejoinedNanos from the kill until the killed member, started again, followed the new leader
 */
record LeaderKill(long pid, String killed, String elected, long electedNanos, long rejoinedNanos) {

	/**
	 * The fault record's detail, as the checker reads it back ({@code elected-after-N-ms}: the ensemble's time
	 * without a leader).
	 */
	String detail() {
		return "leader-" + this.killed + "-killed-" + this.elected + "-elected-after-"
				+ TimeUnit.NANOSECONDS.toMillis(this.electedNanos) + "-ms-" + this.killed + "-rejoined-after-"
				+ TimeUnit.NANOSECONDS.toMillis(this.rejoinedNanos) + "-ms";
	}

}
