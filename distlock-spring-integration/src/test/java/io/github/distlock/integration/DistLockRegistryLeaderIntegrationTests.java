package io.github.distlock.integration;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.integration.leader.AbstractCandidate;
import org.springframework.integration.leader.Context;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;

import io.github.distlock.LostLock;
import io.github.distlock.fixtures.redis.RedisExtension;
import io.github.distlock.fixtures.redis.RespClient;
import io.github.distlock.redis.RedisLockEngine;
import io.github.distlock.redis.RedisLockKeys;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Spring Integration's {@link LockRegistryLeaderInitiator} on the registry, unchanged: two instances, one leader at a
 * time; leadership moves when the leader stops, and when the leader's lock is lost.
 */
class DistLockRegistryLeaderIntegrationTests {

	@RegisterExtension
	static final RedisExtension redis = RedisExtension.anyServer();

	/** How often a leader checks its lock, and a candidate tries for it. */
	private static final long HEART_BEAT_MILLIS = 100;

	private final BlockingQueue<String> events = new LinkedBlockingQueue<>();

	private final BlockingQueue<LostLock> lost = new LinkedBlockingQueue<>();

	/** Each leader's epoch, its lock's fencing token, in the order they were granted. */
	private final List<Long> epochs = new CopyOnWriteArrayList<>();

	private final RedisEngines engines = new RedisEngines(redis);

	private final List<LockRegistryLeaderInitiator> initiators = new ArrayList<>();

	@AfterEach
	void close() throws Exception {
		for (LockRegistryLeaderInitiator initiator : this.initiators) {
			initiator.destroy();
		}
		this.engines.close();
	}

	private LockRegistryLeaderInitiator candidate(String id) {
		return candidate(id, DistLockRegistry.DEFAULT_LEASE);
	}

	private LockRegistryLeaderInitiator candidate(String id, Duration lease) {
		RedisLockEngine engine = this.engines.create(this.lost::add);
		DistLockRegistry registry = new DistLockRegistry(engine, DistLockRegistry.DEFAULT_NAME, lease);
		LockRegistryLeaderInitiator initiator = new LockRegistryLeaderInitiator(registry,
				new AbstractCandidate(id, "reports") {

					@Override
					public void onGranted(Context context) {
						DistLockRegistryLeaderIntegrationTests.this.epochs.add(registry.fencingToken(getRole()));
						DistLockRegistryLeaderIntegrationTests.this.events.add("granted " + id);
					}

					@Override
					public void onRevoked(Context context) {
						DistLockRegistryLeaderIntegrationTests.this.events.add("revoked " + id);
					}

				});
		initiator.setHeartBeatMillis(HEART_BEAT_MILLIS);
		initiator.setBusyWaitMillis(HEART_BEAT_MILLIS);
		this.initiators.add(initiator);
		return initiator;
	}

	private String nextEvent() throws InterruptedException {
		String event = this.events.poll(30, TimeUnit.SECONDS);
		assertThat(event).as("a leadership event within 30 s").isNotNull();
		return event;
	}

	@Test
	void oneInstanceLeadsAndTheOtherTakesOverWhenItStops() throws Exception {
		LockRegistryLeaderInitiator a = candidate("a");
		LockRegistryLeaderInitiator b = candidate("b");
		a.start();
		assertThat(nextEvent()).isEqualTo("granted a");
		b.start();
		// b tries every heart beat; ten of them find the lock a's, and b is never granted meanwhile.
		assertThat(this.events.poll(10 * HEART_BEAT_MILLIS, TimeUnit.MILLISECONDS)).as("events while a leads").isNull();
		assertThat(a.getContext().isLeader()).isTrue();
		assertThat(b.getContext().isLeader()).isFalse();
		a.stop();
		// The initiator unlocks before it revokes: b, waiting in tryLock, may be granted before a's onRevoked runs.
		assertThat(List.of(nextEvent(), nextEvent())).containsExactlyInAnyOrder("revoked a", "granted b");
		assertThat(b.getContext().isLeader()).isTrue();
		assertThat(this.epochs).as("the leaders' epochs, in the order granted").hasSize(2).isSorted();
		assertThat(this.epochs.get(1)).isGreaterThan(this.epochs.get(0));
		assertThat(this.lost).isEmpty();
	}

	/**
	 * The initiator polls its lock (a nested {@code tryLock} each heart beat), so a leader learns of its lock's loss at
	 * its first heart beat after the engine found it: with the key deleted from outside, the other instance may take
	 * it first. Both events come all the same, and the loss is reported.
	 */
	@Test
	void aLeaderWhoseLockIsLostIsRevokedAndTheOtherGranted() throws Exception {
		Duration lease = Duration.ofSeconds(1);
		LockRegistryLeaderInitiator a = candidate("a", lease);
		a.start();
		assertThat(nextEvent()).isEqualTo("granted a");
		LockRegistryLeaderInitiator b = candidate("b", lease);
		b.start();
		try (RespClient resp = redis.client()) {
			resp.call("DEL", new RedisLockKeys("distlock").lockKey(DistLockRegistry.DEFAULT_NAME, "reports"));
		}
		assertThat(List.of(nextEvent(), nextEvent())).containsExactlyInAnyOrder("revoked a", "granted b");
		LostLock loss = this.lost.poll(30, TimeUnit.SECONDS);
		assertThat(loss).as("the loss, reported to the engine's listener").isNotNull();
		assertThat(loss.reason()).isEqualTo(LostLock.Reason.NOT_OWNED);
		assertThat(b.getContext().isLeader()).isTrue();
		assertThat(a.getContext().isLeader()).isFalse();
	}

}
