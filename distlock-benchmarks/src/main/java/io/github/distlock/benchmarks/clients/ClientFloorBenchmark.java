package io.github.distlock.benchmarks.clients;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import org.redisson.Redisson;
import org.redisson.api.RScript;
import org.redisson.api.RScript.ReturnType;
import org.redisson.api.RedissonClient;
import org.redisson.client.RedisConnection;
import org.redisson.client.codec.StringCodec;
import org.redisson.client.protocol.RedisCommand;
import org.redisson.config.Config;
import org.redisson.connection.ConnectionManager;
import org.redisson.connection.MasterSlaveEntry;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

import io.github.distlock.benchmarks.measure.TimedLoop;
import io.github.distlock.benchmarks.redis.RedisUnderTest;

/**
 * The floor under a failed try: one thread sends the same script call (a read of a held key, as a failed try's
 * script does) through each Redis client the way the lock systems do, and nothing else. What a system's failed try
 * costs above its client's floor is its own code; what the floors differ by is the clients'.
 * <ul>
 * <li>{@code redisson-connection}: EVALSHA written on one of Redisson's pooled connections, borrowed and kept, its
 * arguments as bytes, the way distlock's engine sends its scripts (its shared connection);</li>
 * <li>{@code redisson-connection-strings}: the same with the arguments as strings, which Redisson encodes into a
 * pooled buffer per argument (distlock's engine did so until it wrote bytes);</li>
 * <li>{@code redisson-rscript}: Redisson's {@code RScript.evalSha}, a pooled connection per call, the way Redisson's
 * own locks send theirs;</li>
 * <li>{@code lettuce-spring-data}: Spring Data's {@code StringRedisTemplate.execute} of a {@code RedisScript} on a
 * Lettuce connection factory, the way Spring Integration's {@code RedisLockRegistry} sends its scripts;</li>
 * <li>{@code lettuce-sync}: Lettuce's synchronous {@code evalsha} on its one shared connection, the client alone.</li>
 * </ul>
 * Rounds alternate the clients, one after the other, so that each sees the same machine.
 */
public final class ClientFloorBenchmark {

	private static final String SCRIPT = "if redis.call('GET', KEYS[1]) then return {0} end return {1}";

	private static final String KEY = "floor:held";

	private final Duration roundTime;

	private final int rounds;

	ClientFloorBenchmark(Duration roundTime, int rounds) {
		this.roundTime = roundTime;
		this.rounds = rounds;
	}

	public static void main(String[] args) throws IOException {
		boolean smoke = List.of(args).contains("--smoke");
		String report = smoke ? smokeReport() : new ClientFloorBenchmark(Duration.ofSeconds(3), 7).run();
		System.out.println(report);
		int out = List.of(args).indexOf("--out");
		if (out >= 0) {
			Files.writeString(Path.of(args[out + 1]), report, StandardCharsets.UTF_8);
		}
		System.exit(0);
	}

	public static String smokeReport() {
		return new ClientFloorBenchmark(Duration.ofMillis(300), 2).run();
	}

	String run() {
		try (RedisUnderTest redis = RedisUnderTest.start(); Clients clients = new Clients(redis)) {
			Map<String, List<TimedLoop.Result>> results = new LinkedHashMap<>();
			clients.calls().keySet().forEach((name) -> results.put(name, new ArrayList<>()));
			for (int round = 0; round <= this.rounds; round++) {
				for (Map.Entry<String, Runnable> call : clients.calls().entrySet()) {
					TimedLoop.Result result = TimedLoop.run(this.roundTime, Long.MAX_VALUE, () -> null,
							(ignored) -> call.getValue().run());
					if (round > 0) {
						// Round 0 warms every client up.
						results.get(call.getKey()).add(result);
					}
				}
			}
			return table(results);
		}
	}

	private static String table(Map<String, List<TimedLoop.Result>> results) {
		double reference = median(results.get("lettuce-spring-data").stream().map(TimedLoop.Result::perSecond).toList());
		StringBuilder table = new StringBuilder("| client | calls/s | p50 µs | × lettuce-spring-data (calls/s) |\n")
			.append("| --- | ---: | ---: | ---: |\n");
		results.forEach((name, rounds) -> {
			double rate = median(rounds.stream().map(TimedLoop.Result::perSecond).toList());
			double p50 = median(rounds.stream().map((round) -> round.samples().percentileMicros(50)).toList());
			table.append(String.format("| %s | %.0f | %.1f | %.2f× |%n", name, rate, p50, rate / reference));
		});
		return table.toString();
	}

	private static double median(List<Double> values) {
		List<Double> sorted = values.stream().sorted().toList();
		return sorted.get(sorted.size() / 2);
	}

	/** The four ways of sending the call, each on a client of its own. */
	private static final class Clients implements AutoCloseable {

		private final RedissonClient redisson;

		private final RedisConnection borrowed;

		private final MasterSlaveEntry entry;

		private final LettuceConnectionFactory springData;

		private final io.lettuce.core.RedisClient lettuce;

		private final StatefulRedisConnection<String, String> lettuceConnection;

		private final Map<String, Runnable> calls = new LinkedHashMap<>();

		@SuppressWarnings({ "unchecked", "rawtypes" })
		Clients(RedisUnderTest redis) {
			this.lettuce = io.lettuce.core.RedisClient.create(RedisURI.create(redis.url()));
			this.lettuceConnection = this.lettuce.connect();
			this.lettuceConnection.sync().set(KEY, "another-holder|1");
			String sha = this.lettuceConnection.sync().scriptLoad(SCRIPT);

			Config config = new Config();
			config.useSingleServer().setAddress(redis.url());
			this.redisson = Redisson.create(config);
			ConnectionManager connections = ((Redisson) this.redisson).getCommandExecutor().getConnectionManager();
			this.entry = connections.getWriteEntry(connections.calcSlot(KEY));
			RedisCommand<Object> evalSha = (RedisCommand) new RedisCommand<>(ReturnType.LIST.getCommand(), "EVALSHA");
			this.borrowed = this.entry.connectionWriteOp(evalSha).join();
			RScript script = this.redisson.getScript(StringCodec.INSTANCE);

			this.springData = new LettuceConnectionFactory(new RedisStandaloneConfiguration(redis.host(), redis.port()));
			this.springData.afterPropertiesSet();
			this.springData.start();
			StringRedisTemplate template = new StringRedisTemplate(this.springData);
			RedisScript<List> redisScript = RedisScript.of(SCRIPT, List.class);

			byte[] shaBytes = sha.getBytes(StandardCharsets.US_ASCII);
			this.calls.put("redisson-connection", () -> this.borrowed
				.async(10_000, StringCodec.INSTANCE, evalSha, shaBytes, "1".getBytes(StandardCharsets.US_ASCII),
						KEY.getBytes(StandardCharsets.UTF_8))
				.toCompletableFuture()
				.join());
			this.calls.put("redisson-connection-strings", () -> this.borrowed
				.async(10_000, StringCodec.INSTANCE, evalSha, sha, 1, KEY)
				.toCompletableFuture()
				.join());
			this.calls.put("redisson-rscript",
					() -> script.evalSha(RScript.Mode.READ_WRITE, sha, ReturnType.LIST, List.of(KEY)));
			this.calls.put("lettuce-spring-data", () -> template.execute(redisScript, List.of(KEY)));
			this.calls.put("lettuce-sync",
					() -> this.lettuceConnection.sync().evalsha(sha, ScriptOutputType.MULTI, KEY));
		}

		Map<String, Runnable> calls() {
			return this.calls;
		}

		@Override
		public void close() {
			this.entry.releaseWrite(this.borrowed);
			this.redisson.shutdown();
			this.springData.destroy();
			this.lettuceConnection.close();
			this.lettuce.shutdown();
		}

	}

}
