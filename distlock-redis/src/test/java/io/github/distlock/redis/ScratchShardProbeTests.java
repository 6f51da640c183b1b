package io.github.distlock.redis;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.redisson.api.RShardedTopic;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

import io.github.distlock.test.RedisCluster;
import io.github.distlock.test.RedisClusterExtension;
import io.github.distlock.test.RedisProcess;
import io.github.distlock.test.RespClient;

class ScratchShardProbeTests {

	@RegisterExtension
	static final RedisClusterExtension redis = RedisClusterExtension.masters(3);

	static void show(String when, RedisCluster cluster) {
		StringBuilder b = new StringBuilder(when + ": ");
		for (RedisProcess n : cluster.currentMasters()) {
			try (RespClient c = n.client()) {
				b.append(n.port() + "=" + c.call("PUBSUB", "SHARDCHANNELS", "probe*")).append(' ');
			}
		}
		System.out.println("PROBE " + b);
	}

	@Test
	void probe() throws Exception {
		RedisCluster cluster = redis.cluster();
		RedissonClient client = RedisTestClients.create(cluster, Duration.ofSeconds(2));
		String ch = "probe{x}";
		RShardedTopic topic = client.getShardedTopic(ch, StringCodec.INSTANCE);
		topic.addListener(String.class, (c, m) -> System.out.println("PROBE message " + m));
		int slot = HashSlot.of(ch);
		RedisProcess source = cluster.masterOfSlot(slot);
		String neighbour = null;
		for (int i = 0; neighbour == null; i++) { String c = "probe{n" + i + "}"; if (cluster.masterOfSlot(HashSlot.of(c)) == source && HashSlot.of(c) != slot) neighbour = c; }
		RShardedTopic nt = client.getShardedTopic(neighbour, StringCodec.INSTANCE);
		nt.addListener(String.class, (c, m) -> System.out.println("PROBE neighbour message " + m));
		show("subscribed", cluster);
		RedisProcess target = cluster.currentMasters().stream().filter(n -> n != source).findFirst().orElseThrow();
		RedisCluster.SlotMigration m = cluster.migrate(slot, target);
		m.moveKeys();
		m.finish();
		long t0 = System.nanoTime();
		while (topic.countListeners() > 0) Thread.sleep(1);
		System.out.println("PROBE forgotten after " + (System.nanoTime() - t0) / 1_000_000 + "ms");
		Thread.sleep(Integer.getInteger("probe.delay", 0));
		for (String other : new String[] { "probe{y}", "probe{z}", "probe{w}", "probe{x}:2" }) {
			long t1 = System.nanoTime();
			var o = client.getShardedTopic(other, StringCodec.INSTANCE).addListenerAsync(String.class, (c, m3) -> {}).toCompletableFuture();
			try { o.get(10, TimeUnit.SECONDS); System.out.println("PROBE other " + other + " slot " + HashSlot.of(other) + " ok in " + (System.nanoTime() - t1) / 1_000_000 + "ms"); }
			catch (Exception e) { System.out.println("PROBE other " + other + " failed " + e); }
		}
		var added = topic.addListenerAsync(String.class, (c, m2) -> System.out.println("PROBE message2 " + m2)).toCompletableFuture();
		added.whenComplete((v, e) -> System.out.println("PROBE add done at " + (System.nanoTime() - t0) / 1_000_000 + "ms " + e));
		for (int i = 0; i < 30 && !added.isDone(); i++) { Thread.sleep(500); }
		show("end at " + (System.nanoTime() - t0) / 1_000_000, cluster);
		System.out.println("PROBE neighbour count=" + nt.countListeners());
		try (RespClient c = source.client()) { System.out.println("PROBE neighbour publish -> " + c.call("SPUBLISH", neighbour, "hi")); }
		Thread.sleep(300);
		client.shutdown();
	}
}
