package io.github.distlock.benchmarks.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

import io.github.distlock.fixtures.redis.RedisProcess;
import io.github.distlock.fixtures.redis.RedisServers;
import io.github.distlock.fixtures.redis.RespClient;

/**
 * The one redis-server every system is measured against: a local process on 127.0.0.1 and a free port, with
 * persistence off (a snapshot or an append-only fsync in the middle of a round would be noise), and a side
 * connection for reading its counters.
 * <p>
 * The side connection is the tests' raw RESP client, deliberately not one of the clients under test, so that the
 * measuring side neither shares their connection pools nor adds to their statistics in any way but the commands it
 * sends itself (which {@link RedisInfo} leaves out).
 */
public final class RedisUnderTest implements AutoCloseable {

	private final RedisProcess process;

	private final RespClient side;

	private RedisUnderTest(RedisProcess process) {
		this.process = process;
		this.side = new RespClient(process.host(), process.port(), Duration.ofSeconds(30));
		// The test fixture turns keyspace notifications on for the tests that watch keys; here they would only add
		// a publish to every lock command.
		this.side.call("CONFIG", "SET", "notify-keyspace-events", "");
	}

	/** Uses the machine's {@code redis-server} if it is Redis 7 or newer, else Debian's, as the tests do. */
	public static RedisUnderTest start() {
		RedisProcess process = RedisServers.startProcess();
		try {
			return new RedisUnderTest(process);
		}
		catch (RuntimeException ex) {
			process.close();
			throw ex;
		}
	}

	public String host() {
		return this.process.host();
	}

	public int port() {
		return this.process.port();
	}

	public String url() {
		return this.process.url();
	}

	/** Which binary runs, so the report can say so. */
	public String binary() {
		return this.process.binary().path().toString();
	}

	public synchronized RedisInfo info() {
		return RedisInfo.parse((String) this.side.call("INFO", "commandstats", "cpu", "memory"));
	}

	/**
	 * A reading taken once the memory keys take has stopped moving: Redis frees some memory of released locks and
	 * closed connections only a moment later, which would otherwise be counted against the next measurement.
	 * Waits at most {@code limit}.
	 */
	public RedisInfo settledInfo(Duration limit) {
		long deadline = System.nanoTime() + limit.toNanos();
		RedisInfo previous = info();
		int steady = 0;
		while (steady < 2 && System.nanoTime() < deadline) {
			try {
				Thread.sleep(200);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				break;
			}
			RedisInfo current = info();
			steady = (Math.abs(current.dataMemory() - previous.dataMemory()) < 4096) ? steady + 1 : 0;
			previous = current;
		}
		return previous;
	}

	public synchronized String version() {
		String server = (String) this.side.call("INFO", "server");
		for (String line : server.split("\r\n")) {
			if (line.startsWith("redis_version:")) {
				return line.substring("redis_version:".length());
			}
		}
		return "unknown";
	}

	/** Keys matching {@code pattern} now. */
	public long countKeys(String pattern) {
		return keys(pattern).size();
	}

	/** Keys matching {@code pattern} that would stay forever: no time to live. */
	public synchronized long countKeysWithoutTtl(String pattern) {
		return keys(pattern).stream().filter((key) -> (Long) this.side.call("PTTL", key) == -1L).count();
	}

	/** A few keys matching {@code pattern}, each with its remaining time to live, to show in a report. */
	public synchronized String sampleKeys(String pattern, int count) {
		return keys(pattern).stream()
			.limit(count)
			.map((key) -> key + " (pttl " + this.side.call("PTTL", key) + " ms)")
			.collect(Collectors.joining(", "));
	}

	/** Sends a command on the side connection, to mark a point in a MONITOR trace. */
	public synchronized void echo(String text) {
		this.side.call("ECHO", text);
	}

	@SuppressWarnings("unchecked")
	private synchronized List<String> keys(String pattern) {
		// SCAN rather than KEYS: the run may look while another system's locks are numerous.
		List<String> found = new ArrayList<>();
		String cursor = "0";
		int pages = 0;
		do {
			List<Object> reply = (List<Object>) this.side.call("SCAN", cursor, "MATCH", pattern, "COUNT", 1000);
			cursor = (String) reply.get(0);
			for (Object key : (List<Object>) reply.get(1)) {
				found.add((String) key);
			}
		}
		while (!"0".equals(cursor) && ++pages < 1_000_000);
		return found;
	}

	@Override
	public void close() {
		this.side.close();
		this.process.close();
	}

}
