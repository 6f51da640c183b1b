package io.github.distlock.benchmarks.redis;

import java.util.Map;
import java.util.TreeMap;

/**
 * The commands Redis executed between two markers, as MONITOR showed them: each either sent by a client (one round
 * trip, unless the client pipelined) or called by a script.
 *
 * @param clientCommands commands sent by clients, by upper-case name
 * @param scriptCommands commands called from inside scripts, by upper-case name
 */
public record CommandTrace(Map<String, Long> clientCommands, Map<String, Long> scriptCommands) {

	public long clientCount() {
		return this.clientCommands.values().stream().mapToLong(Long::longValue).sum();
	}

	public long scriptCount() {
		return this.scriptCommands.values().stream().mapToLong(Long::longValue).sum();
	}

	/** "EVALSHA 2 | in scripts: DEL 1, GET 1" with counts divided by {@code per}. */
	public String describe(int per) {
		return format(this.clientCommands, per) + " | in scripts: " + format(this.scriptCommands, per);
	}

	private static String format(Map<String, Long> counts, int per) {
		if (counts.isEmpty()) {
			return "none";
		}
		StringBuilder text = new StringBuilder();
		new TreeMap<>(counts).forEach((name, count) -> {
			if (text.length() > 0) {
				text.append(", ");
			}
			double each = (double) count / per;
			text.append(name).append(' ').append((each == Math.rint(each)) ? String.valueOf((long) each)
					: String.format(java.util.Locale.ROOT, "%.2f", each));
		});
		return text.toString();
	}

}
