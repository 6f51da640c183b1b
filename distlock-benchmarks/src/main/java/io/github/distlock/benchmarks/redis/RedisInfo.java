package io.github.distlock.benchmarks.redis;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * One reading of Redis' own counters ({@code INFO commandstats cpu memory}). Commands that scripts call count in
 * commandstats like any other, so differences of two readings give every command a lock library caused, inside
 * its scripts or not.
 *
 * @param calls calls per command since start
 * @param cpuSeconds CPU time Redis used since start, system plus user
 * @param dataMemory {@code used_memory} less {@code mem_clients_normal}: what keys and their dictionaries take.
 * Connection buffers are left out because they change on their own (Redis frees the query buffer of a connection
 * idle for two seconds), which over thousands of lock keys would otherwise show as bytes per lock.
 */
public record RedisInfo(Map<String, Long> calls, double cpuSeconds, long dataMemory) {

	/** Script invocations: each is one round trip from the client. */
	private static final Set<String> SCRIPT_COMMANDS = Set.of("eval", "evalsha", "eval_ro", "evalsha_ro", "fcall",
			"fcall_ro");

	/**
	 * Commands of the harness itself and connection keep-alives, which no lock operation causes: left out of every
	 * count.
	 */
	private static final Set<String> NOT_LOCKING = Set.of("info", "echo", "ping", "scan", "dbsize", "config",
			"monitor", "ttl", "command", "client|setname", "client|setinfo", "hello", "select");

	static RedisInfo parse(String text) {
		Map<String, Long> calls = new HashMap<>();
		double cpu = 0;
		long memory = 0;
		long clients = 0;
		for (String line : text.split("\r\n")) {
			if (line.startsWith("cmdstat_")) {
				String name = line.substring("cmdstat_".length(), line.indexOf(':'));
				calls.put(name, field(line, "calls="));
			}
			else if (line.startsWith("used_cpu_sys:") || line.startsWith("used_cpu_user:")) {
				cpu += Double.parseDouble(line.substring(line.indexOf(':') + 1));
			}
			else if (line.startsWith("used_memory:")) {
				memory = Long.parseLong(line.substring(line.indexOf(':') + 1));
			}
			else if (line.startsWith("mem_clients_normal:")) {
				clients = Long.parseLong(line.substring(line.indexOf(':') + 1));
			}
		}
		return new RedisInfo(Map.copyOf(calls), cpu, memory - clients);
	}

	private static long field(String line, String name) {
		int start = line.indexOf(name) + name.length();
		int end = line.indexOf(',', start);
		return Long.parseLong(line.substring(start, (end < 0) ? line.length() : end));
	}

	/** What happened between {@code earlier} and this reading. */
	public Delta since(RedisInfo earlier) {
		Map<String, Long> delta = new HashMap<>();
		this.calls.forEach((name, count) -> {
			long diff = count - earlier.calls.getOrDefault(name, 0L);
			if (diff != 0 && !NOT_LOCKING.contains(name)) {
				delta.put(name, diff);
			}
		});
		return new Delta(Map.copyOf(delta), this.cpuSeconds - earlier.cpuSeconds, this.dataMemory - earlier.dataMemory);
	}

	/**
	 * The difference of two readings.
	 *
	 * @param calls calls per command (lower case), scripts' inner commands included, harness commands excluded
	 * @param cpuSeconds Redis CPU time used, system plus user
	 * @param memoryBytes change of the memory keys take (see {@link RedisInfo#dataMemory()})
	 */
	public record Delta(Map<String, Long> calls, double cpuSeconds, long memoryBytes) {

		public long scriptCalls() {
			return this.calls.entrySet()
				.stream()
				.filter((entry) -> SCRIPT_COMMANDS.contains(entry.getKey()))
				.mapToLong(Map.Entry::getValue)
				.sum();
		}

		public long totalCalls() {
			return this.calls.values().stream().mapToLong(Long::longValue).sum();
		}

		public long calls(String command) {
			return this.calls.getOrDefault(command, 0L);
		}

	}

}
