package io.github.distlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.redisson.api.RedissonClient;
import org.redisson.api.redisnode.RedisNode.InfoSection;
import org.redisson.api.redisnode.RedisNodeAsync;
import org.redisson.api.redisnode.RedisNodes;
import org.redisson.config.Config;

/**
 * Reads Redis's eviction policy from {@code INFO memory} on every master, the nodes that hold lock keys. INFO, not
 * {@code CONFIG GET}, because managed Redis services and locked-down users are often denied CONFIG. Never throws:
 * a denied, failed or late answer gives an {@link EvictionPolicy#UNKNOWN unknown} policy that says why, so a
 * check of configuration never keeps an application from starting.
 */
public final class EvictionPolicyReader {

	private final RedissonClient client;

	private final Duration timeout;

	/**
	 * @param timeout the longest the whole read waits, so a stalled Redis cannot hold up start-up or a health check
	 */
	public EvictionPolicyReader(RedissonClient client, Duration timeout) {
		this.client = client;
		this.timeout = timeout;
	}

	public EvictionPolicy read() {
		long deadline = System.nanoTime() + this.timeout.toNanos();
		List<CompletableFuture<Map<String, String>>> replies = new ArrayList<>();
		try {
			for (RedisNodeAsync master : masters()) {
				replies.add(master.infoAsync(InfoSection.MEMORY).toCompletableFuture());
			}
			EvictionPolicy answer = null;
			for (CompletableFuture<Map<String, String>> reply : replies) {
				long left = Math.max(0, deadline - System.nanoTime());
				EvictionPolicy one = parse(reply.get(left, TimeUnit.NANOSECONDS));
				// With several masters, the riskiest one tells whether a lock can be evicted.
				if (answer == null || !answer.isKnown() || (one.canEvictLocks() && !answer.canEvictLocks())) {
					answer = one;
				}
			}
			return (answer != null) ? answer : EvictionPolicy.unknown("Redis reported no master");
		}
		catch (TimeoutException ex) {
			return EvictionPolicy.unknown("INFO did not answer within " + this.timeout.toMillis() + " ms");
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return EvictionPolicy.unknown("interrupted while waiting for INFO");
		}
		catch (ExecutionException ex) {
			return EvictionPolicy.unknown(describe(Objects.requireNonNullElse(ex.getCause(), ex)));
		}
		catch (RuntimeException ex) {
			return EvictionPolicy.unknown(describe(ex));
		}
		finally {
			replies.forEach((reply) -> reply.cancel(false));
		}
	}

	private Collection<? extends RedisNodeAsync> masters() {
		Config config = this.client.getConfig();
		if (config.isClusterConfig()) {
			return this.client.getRedisNodes(RedisNodes.CLUSTER).getMasters();
		}
		if (config.isSentinelConfig()) {
			return List.of(this.client.getRedisNodes(RedisNodes.SENTINEL_MASTER_SLAVE).getMaster());
		}
		// Single server, master and replicas, and replicated servers all answer as one master.
		return List.of(this.client.getRedisNodes(RedisNodes.MASTER_SLAVE).getMaster());
	}

	private static EvictionPolicy parse(Map<String, String> memory) {
		String policy = memory.get("maxmemory_policy");
		if (policy == null) {
			return EvictionPolicy.unknown("INFO memory has no maxmemory_policy");
		}
		long maxMemory;
		try {
			maxMemory = Long.parseLong(memory.getOrDefault("maxmemory", "-1").trim());
		}
		catch (NumberFormatException ex) {
			maxMemory = -1;
		}
		return EvictionPolicy.known(policy.trim(), maxMemory);
	}

	/** Why INFO failed, in words that name no server: Redisson's own messages often carry addresses. */
	private static String describe(Throwable failure) {
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			String message = cause.getMessage();
			if (message != null && message.contains("NOPERM")) {
				return "INFO was denied (NOPERM): the Redis user may not run it";
			}
		}
		return "INFO failed (" + failure.getClass().getSimpleName() + ")";
	}

}
